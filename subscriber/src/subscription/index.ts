// subscription/: the WebSub lifecycle (pure decisions in lifecycle.ts), the hub client, and the shell
// that stores each request as pending before sending it (WS-7).
export * from './lifecycle.js';
export * from './verification.js';
export * from './delivery.js';
export * from './hub-client.js';
export * from './manager.js';
