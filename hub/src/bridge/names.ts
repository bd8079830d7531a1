// What an operator may give the bridge (a name, a poll URL, an interval) and the topic URL a bridged
// Source gets. Pure checks; each refusal is a BridgeError with its own code.
import { BridgeError } from './read.js';

/** `{hubUrl}/bridge/{name}`: the topic URL of a bridged Source. */
export function bridgedTopicUrl(hubUrl: string, name: string): string {
  return `${hubUrl.replace(/\/+$/, '')}/bridge/${encodeURIComponent(name)}`;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkBridgeName(name: string): void {
  if (!NAME.test(name))
    throw new BridgeError(
      'RSN_BRIDGE_BAD_NAME',
      `bridged Source name ${JSON.stringify(name)}: letters, digits, . _ - (max 64)`,
      { name },
    );
}

export function checkPollUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new BridgeError(
      'RSN_BRIDGE_BAD_URL',
      `poll URL ${JSON.stringify(url)} is not an absolute URL`,
      { url },
    );
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new BridgeError('RSN_BRIDGE_BAD_URL', `poll URL ${url} must be http(s)`, { url });
  return u.href;
}

export function checkInterval(ms: number): number {
  if (!Number.isInteger(ms) || ms < 100)
    throw new BridgeError(
      'RSN_BRIDGE_BAD_INTERVAL',
      `poll interval must be at least 100 ms, not ${ms}`,
      { ms },
    );
  return ms;
}

/** The lookup key of a Source URL: no fragment, no trailing slash. */
export function sourceUrlKey(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href.replace(/\/+$/, '');
  } catch {
    return url;
  }
}
