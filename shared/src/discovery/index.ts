// discovery/: from any URL of a Source to its Capability List (RS §6.3) and on to the
// change-notification channel, with WebSub discovery on the topic (WS-1..WS-3). Shared by the
// subscriber (what to subscribe to or poll) and the hub's poll-to-push bridge (what to poll).
export * from './discover.js';
export * from './fetch.js';
