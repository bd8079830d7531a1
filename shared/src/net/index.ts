// Outbound-network guard (README promise 4): hub verification, delivery and topic
// fetches, and subscriber fetches refuse loopback, private, link-local and other special addresses
// after DNS resolution, unless explicitly allowed. The check sits in undici's connector, so it also
// covers every redirect hop and cannot be bypassed by DNS rebinding between check and connect: we
// connect to the very address we checked.
import { BlockList, isIP } from 'node:net';
import { lookup } from 'node:dns';
import { Agent, buildConnector } from 'undici';
import { RsnotifyError, type CodesOf, type SHARED_ERRORS } from '../errors/index.js';

const special = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  special.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  special.addSubnet(net, prefix, 'ipv6');

export type AddressClass = 'public' | 'special';

/** Classifies an IP literal; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is judged by its IPv4 part. */
export function classifyAddress(address: string): AddressClass {
  let a = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const family = isIP(a);
  if (family === 0) return 'special';
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
    if (mapped) return special.check(mapped[1]!, 'ipv4') ? 'special' : 'public';
    return special.check(a, 'ipv6') ? 'special' : 'public';
  }
  return special.check(a, 'ipv4') ? 'special' : 'public';
}

export class OutboundAddressError extends RsnotifyError<
  CodesOf<typeof SHARED_ERRORS, 'OutboundAddressError'>
> {
  constructor(host: string, address: string) {
    super(
      'RSN_OUTBOUND_PRIVATE_ADDRESS',
      `refusing to connect to ${host} (${address}): loopback, private or special address`,
      {
        details: { host, address },
      },
    );
    this.name = 'OutboundAddressError';
  }
}

export class OutboundUrlError extends RsnotifyError<
  CodesOf<typeof SHARED_ERRORS, 'OutboundUrlError'>
> {
  constructor(url: string, reason: string) {
    super('RSN_OUTBOUND_BAD_URL', `refusing URL ${JSON.stringify(url)}: ${reason}`, {
      details: { url, reason },
    });
    this.name = 'OutboundUrlError';
  }
}

export interface OutboundPolicy {
  /** Permit loopback and private addresses (development, tests, intranet deployments). */
  readonly allowPrivateNetworks: boolean;
}

/**
 * Checks a URL before any I/O: http(s) only, no credentials, and an IP-literal host must be public
 * unless allowed. Host names are checked again after resolution by the guarded connector.
 */
export function checkOutboundUrl(url: string, policy: OutboundPolicy): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new OutboundUrlError(url, 'not an absolute URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new OutboundUrlError(url, 'scheme must be http or https');
  if (u.username || u.password) throw new OutboundUrlError(url, 'credentials in URL');
  if (!u.hostname) throw new OutboundUrlError(url, 'no host');
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  if (!policy.allowPrivateNetworks && isIP(host) && classifyAddress(host) === 'special') {
    throw new OutboundAddressError(host, host);
  }
  if (!policy.allowPrivateNetworks && (host === 'localhost' || host.endsWith('.localhost'))) {
    throw new OutboundAddressError(host, '127.0.0.1');
  }
  return u;
}

type Connector = ReturnType<typeof buildConnector>;

/** Wraps undici's connector: resolve, check every address, connect to the checked one. */
export function createGuardedConnector(
  policy: OutboundPolicy,
  options: buildConnector.BuildOptions = {},
): Connector {
  const base = buildConnector(options);
  if (policy.allowPrivateNetworks) return base;
  return function guardedConnect(opts, callback) {
    const raw = opts.hostname;
    const host = raw.startsWith('[') ? raw.slice(1, -1) : raw;
    if (isIP(host)) {
      if (classifyAddress(host) === 'special') {
        callback(new OutboundAddressError(host, host), null);
        return;
      }
      base(opts, callback);
      return;
    }
    lookup(host, { all: true }, (err, addresses) => {
      if (err) {
        callback(err, null);
        return;
      }
      const blocked = addresses.find((a) => classifyAddress(a.address) === 'special');
      // One special address among several is refused too: the resolver could hand it out next time.
      if (blocked || addresses.length === 0) {
        callback(new OutboundAddressError(host, blocked?.address ?? 'none'), null);
        return;
      }
      const chosen = addresses[0]!;
      base({ ...opts, hostname: chosen.address, servername: opts.servername ?? host }, callback);
    });
  };
}

export interface OutboundAgentOptions extends OutboundPolicy {
  /** Connections per origin. */
  readonly connections?: number;
  readonly connectTimeoutMs?: number;
  readonly headersTimeoutMs?: number;
  readonly bodyTimeoutMs?: number;
  readonly keepAliveTimeoutMs?: number;
  /** Responses larger than this fail with UND_ERR_RES_EXCEEDED_MAX_SIZE (-1: unlimited). */
  readonly maxResponseSize?: number;
}

/** The one keep-alive undici Agent shape every outbound path uses (never `fetch`; see toolchain notes). */
export function createOutboundAgent(options: OutboundAgentOptions): Agent {
  return new Agent({
    connections: options.connections ?? 8,
    pipelining: 1,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
    keepAliveMaxTimeout: 60_000,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    headersTimeout: options.headersTimeoutMs ?? 10_000,
    bodyTimeout: options.bodyTimeoutMs ?? 10_000,
    maxResponseSize: options.maxResponseSize ?? -1,
    connect: createGuardedConnector(options, { timeout: options.connectTimeoutMs ?? 5_000 }),
  });
}
