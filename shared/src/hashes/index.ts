// `hash` attribute lists (RC-26): whitespace-separated `alg:value` tokens, hex or base64 values.
// Unknown algorithms and unparsable values are kept for round trips but never count as a mismatch.
import { createHash } from 'node:crypto';

export type HashAlgorithm = 'md5' | 'sha-1' | 'sha-256' | 'sha-512';

export const SUPPORTED_HASH_ALGORITHMS: readonly HashAlgorithm[] = [
  'md5',
  'sha-1',
  'sha-256',
  'sha-512',
];

const NODE_NAME: Record<HashAlgorithm, string> = {
  md5: 'md5',
  'sha-1': 'sha1',
  'sha-256': 'sha256',
  'sha-512': 'sha512',
};
const DIGEST_BYTES: Record<HashAlgorithm, number> = {
  md5: 16,
  'sha-1': 20,
  'sha-256': 32,
  'sha-512': 64,
};

export interface HashToken {
  /** As written, lower-cased (`md5`, `sha-256`, or an unknown name). */
  readonly algorithm: string;
  /** As written. */
  readonly value: string;
  /** Lower-case hex digest when the algorithm is known and the value decodes (hex or base64). */
  readonly hex?: string;
}

export type HashList = readonly HashToken[];

function isSupported(alg: string): alg is HashAlgorithm {
  return (SUPPORTED_HASH_ALGORITHMS as readonly string[]).includes(alg);
}

function normaliseAlgorithm(alg: string): string {
  const a = alg.toLowerCase();
  if (a === 'sha1') return 'sha-1';
  if (a === 'sha256') return 'sha-256';
  if (a === 'sha512') return 'sha-512';
  return a;
}

/** Hex digits only, tested without a regex (every entry of a Change List carries a digest). */
function isHex(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46)))
      return false;
  }
  return true;
}

/** Decodes a digest value written as hex or base64 to lower-case hex; undefined if neither fits. */
export function digestToHex(algorithm: string, value: string): string | undefined {
  const alg = normaliseAlgorithm(algorithm);
  if (!isSupported(alg)) return undefined;
  const bytes = DIGEST_BYTES[alg];
  if (value.length === bytes * 2 && isHex(value)) return value.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const buf = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (buf.length === bytes) return buf.toString('hex');
  }
  return undefined;
}

export function parseHashList(attribute: string): HashList {
  const tokens: HashToken[] = [];
  for (const raw of attribute.split(/\s+/)) {
    if (!raw) continue;
    const colon = raw.indexOf(':');
    if (colon <= 0) {
      tokens.push({ algorithm: '', value: raw });
      continue;
    }
    const algorithm = normaliseAlgorithm(raw.slice(0, colon));
    const value = raw.slice(colon + 1);
    const hex = digestToHex(algorithm, value);
    tokens.push(hex === undefined ? { algorithm, value } : { algorithm, value, hex });
  }
  return tokens;
}

export function formatHashList(list: HashList): string {
  return list.map((t) => (t.algorithm ? `${t.algorithm}:${t.value}` : t.value)).join(' ');
}

/** Builds hex tokens for the given algorithms over `bytes`. */
export function computeHashList(
  bytes: Uint8Array,
  algorithms: readonly HashAlgorithm[] = ['md5', 'sha-256'],
): HashList {
  return algorithms.map((algorithm) => {
    const hex = createHash(NODE_NAME[algorithm]).update(bytes).digest('hex');
    return { algorithm, value: hex, hex };
  });
}

export function digestHex(algorithm: HashAlgorithm, bytes: Uint8Array): string {
  return createHash(NODE_NAME[algorithm]).update(bytes).digest('hex');
}

/** Incremental hashing for streamed bodies: feed chunks, then read every digest at once. */
export class MultiHasher {
  private readonly hashes: Map<HashAlgorithm, ReturnType<typeof createHash>>;
  private bytes = 0;

  constructor(algorithms: Iterable<HashAlgorithm>) {
    this.hashes = new Map([...new Set(algorithms)].map((a) => [a, createHash(NODE_NAME[a])]));
  }

  update(chunk: Uint8Array): void {
    this.bytes += chunk.length;
    for (const h of this.hashes.values()) h.update(chunk);
  }

  get length(): number {
    return this.bytes;
  }

  digests(): Map<HashAlgorithm, string> {
    return new Map([...this.hashes].map(([a, h]) => [a, h.digest('hex')]));
  }
}

/** The algorithms of a list that we can check. */
export function checkableAlgorithms(expected: HashList): HashAlgorithm[] {
  return expected
    .filter((t) => t.hex !== undefined && isSupported(t.algorithm))
    .map((t) => t.algorithm as HashAlgorithm);
}

export interface HashMismatch {
  readonly algorithm: HashAlgorithm;
  readonly expected: string;
  readonly actual: string;
}

/**
 * Compares every checkable token of `expected` with `actual` digests (hex). Returns the mismatches;
 * an empty array means every given hash we understand matched.
 */
export function compareHashes(
  expected: HashList,
  actual: ReadonlyMap<HashAlgorithm, string>,
): HashMismatch[] {
  const out: HashMismatch[] = [];
  for (const token of expected) {
    if (token.hex === undefined || !isSupported(token.algorithm)) continue;
    const got = actual.get(token.algorithm);
    if (got === undefined) continue;
    if (got.toLowerCase() !== token.hex)
      out.push({ algorithm: token.algorithm, expected: token.hex, actual: got });
  }
  return out;
}

/** Digests bytes with every checkable algorithm of `expected` and compares. */
export function verifyBytes(expected: HashList, bytes: Uint8Array): HashMismatch[] {
  const hasher = new MultiHasher(checkableAlgorithms(expected));
  hasher.update(bytes);
  return compareHashes(expected, hasher.digests());
}
