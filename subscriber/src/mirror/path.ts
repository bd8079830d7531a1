// URI -> file path under mirrorDir (promise 4: nothing outside the project's own directories is
// written). Layout: `<mirrorDir>/<host dir>/<segment>/.../<file name>`.
//
// Names are reversible, so distinct URIs never share a file. A path segment keeps its raw characters
// and its percent-escapes, except that escapes which are equivalent to the character (RFC 3986
// §6.2.2.2: unreserved characters) or that WHATWG would always write escaped (space, non-ASCII
// letters, `"#<>\`{}`) are decoded, so mirrors stay readable (`a b/café`). Escapes of reserved
// characters (`%3A` vs `:`, `%26` vs `&`, `%2F` vs `/`) stay escaped, because they make a different
// URI: `a%2Fb.txt` is one file name, distinct from the file `b.txt` in directory `a`. A segment may
// not be empty, `.`, `..`, contain a raw separator or control bytes.
// Every '%' in a mapped name starts an escape with two upper-case hex digits, so `%%` never occurs
// in one; names containing it are ours:
//   `%%index`        the file of a URI that ends in '/' (the "index" of a directory URI)
//   `%%self`         a file whose name is also a directory (`/m/dir` next to `/m/dir/child.txt`):
//                    it lives inside that directory (writer.ts moves it there when the directory comes)
//   `%%tmp-...`      temporary files of the atomic writer (never a mapped name)
//   `...%%<sha256>`  a name too long for the file system: a readable prefix plus the digest of the full name
// A query string follows a raw '?' (segments keep '?' as %3F), with '%' and '/' escaped.
// Layout 1 (before) used `%2F` for these names and refused `%2F` in segments; migrate.ts moves old
// mirrors over.
import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { MirrorError } from './errors.js';

/** File name of a URI whose path ends in '/'. */
export const INDEX_FILE_NAME = '%%index';
/** Name, inside a directory, of the file whose URI maps to that directory's own path. */
export const SELF_FILE_NAME = '%%self';
/** Prefix of the writer's temporary files; no URI maps to a name starting with it. */
export const TEMP_FILE_PREFIX = '%%tmp-';

/** Longest file name we produce (bytes); Linux allows 255. */
const MAX_NAME_BYTES = 200;

function isControl(code: number): boolean {
  return code < 0x20 || code === 0x7f;
}

function hex(byte: number): string {
  return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** Escapes '%' and '/' (the only characters a file name cannot carry reversibly). */
export function escapeName(name: string): string {
  return name.replace(/[%/]/g, (c) => hex(c.charCodeAt(0)));
}

// Decoded in segment names: equivalent to the escape (unreserved), or always escaped by WHATWG.
const DECODABLE_ASCII = /^[A-Za-z0-9\-._~ "#<>`{}]$/;

function isDecodable(cp: number): boolean {
  if (cp >= 0xa0) return !(cp >= 0xd800 && cp <= 0xdfff);
  return cp < 0x80 && DECODABLE_ASCII.test(String.fromCharCode(cp));
}

/** Decodes one UTF-8 sequence at `i`, or undefined when the bytes there are not valid UTF-8. */
function utf8At(bytes: readonly number[], i: number): { cp: number; size: number } | undefined {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return { cp: b0, size: 1 };
  const size = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc2 && b0 < 0xe0 ? 2 : 0;
  if (size === 0 || i + size > bytes.length) return undefined;
  let cp = b0 & (size === 2 ? 0x1f : size === 3 ? 0x0f : 0x07);
  for (let k = 1; k < size; k++) {
    const b = bytes[i + k]!;
    if ((b & 0xc0) !== 0x80) return undefined;
    cp = (cp << 6) | (b & 0x3f);
  }
  const min = size === 2 ? 0x80 : size === 3 ? 0x800 : 0x10000;
  if (cp < min || cp > 0x10ffff) return undefined;
  return { cp, size };
}

/** The file-system name of a run of percent-escapes (their bytes). */
function nameOfEscapes(bytes: number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const d = utf8At(bytes, i);
    if (d && isDecodable(d.cp)) {
      out += String.fromCodePoint(d.cp);
      i += d.size;
    } else {
      const size = d?.size ?? 1;
      for (let k = 0; k < size; k++) out += hex(bytes[i + k]!);
      i += size;
    }
  }
  return out;
}

/** Shortens an over-long name to a readable prefix plus the SHA-256 of the whole name. */
function fitName(name: string): string {
  // A UTF-16 code unit is at most 3 UTF-8 bytes: short names need no count.
  if (name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name, 'utf8') <= MAX_NAME_BYTES)
    return name;
  const digest = createHash('sha256').update(name, 'utf8').digest('hex');
  let prefix = '';
  let bytes = 0;
  for (const ch of name) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > MAX_NAME_BYTES - 3 - 64) break;
    prefix += ch;
    bytes += n;
  }
  // Never cut an escape in half: drop a trailing partial `%X`.
  prefix = prefix.replace(/%[0-9A-F]?$/, '');
  return `${prefix}%%${digest}`;
}

function fail(code: 'RSN_PATH_ESCAPE' | 'RSN_PATH_UNMAPPABLE', uri: string, reason: string): never {
  throw new MirrorError(code, `cannot map ${JSON.stringify(uri)} into the mirror: ${reason}`, {
    details: { uri, reason },
  });
}

/**
 * A segment of printable ASCII without '%' or '\\' (most segments of most URIs): nothing to decode
 * and no byte to refuse, so it is its own name. The general path below gives the same answer for it.
 */
function isPlainSegment(raw: string): boolean {
  if (raw.length === 0) return false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x25 || c === 0x5c) return false;
  }
  return true;
}

/** Checks one raw (still percent-encoded) path segment and returns its file-system name. */
function segmentName(uri: string, raw: string): string {
  if (isPlainSegment(raw)) {
    if (raw === '.' || raw === '..')
      return fail('RSN_PATH_ESCAPE', uri, `dot segment ${JSON.stringify(raw)}`);
    return raw;
  }
  return escapedSegmentName(uri, raw);
}

/** segmentName for a segment with escapes, non-ASCII, controls or separators. */
function escapedSegmentName(uri: string, raw: string): string {
  const bytes: number[] = []; // the fully decoded segment, for the checks
  let name = '';
  let run: number[] = [];
  const flush = (): void => {
    if (run.length > 0) {
      name += nameOfEscapes(run);
      run = [];
    }
  };
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '%' && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      const b = parseInt(raw.slice(i + 1, i + 3), 16);
      run.push(b);
      bytes.push(b);
      i += 2;
      continue;
    }
    flush();
    // A stray '%' is not a URI (RFC 3986 §2.1) though WHATWG keeps it; `%25` would share its name.
    if (c === '%')
      return fail('RSN_PATH_UNMAPPABLE', uri, `stray '%' in segment ${JSON.stringify(raw)}`);
    name += c;
    for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
  }
  flush();
  if (bytes.length === 0) return fail('RSN_PATH_UNMAPPABLE', uri, 'empty path segment');
  const decoded = Buffer.from(bytes).toString('latin1');
  if (decoded === '.' || decoded === '..')
    return fail('RSN_PATH_ESCAPE', uri, `dot segment ${JSON.stringify(raw)}`);
  // An escaped '/' or '\\' stays escaped in `name` (nameOfEscapes never decodes them), so the name
  // holds no separator; a raw one cannot reach here (WHATWG splits on both).
  if (name.includes('/') || name.includes('\\')) {
    return fail('RSN_PATH_ESCAPE', uri, `segment ${JSON.stringify(raw)} contains a path separator`);
  }
  if (bytes.some(isControl))
    return fail(
      'RSN_PATH_UNMAPPABLE',
      uri,
      `segment ${JSON.stringify(raw)} contains a control byte`,
    );
  return name;
}

function hostDirName(u: URL): string {
  // The port is kept (two Sources on one host are two trees); https gets its own tree so http and
  // https URIs of one host stay distinct. ':' is escaped like everywhere else.
  let name = u.hostname;
  if (u.protocol === 'https:') name += '%3Ahttps';
  if (u.port) name += `%3A${u.port}`;
  return fitName(name);
}

/**
 * The file that mirrors `uri`, under `mirrorDir`. Throws MirrorError RSN_PATH_ESCAPE when the URI
 * would lead outside (dot segments, separators inside a segment) and RSN_PATH_UNMAPPABLE when it has
 * no safe name (another scheme, empty segments, control bytes, broken escapes).
 */
export function uriToMirrorPath(mirrorDir: string, uri: string): string {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return fail('RSN_PATH_UNMAPPABLE', uri, 'not an absolute URI');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return fail('RSN_PATH_UNMAPPABLE', uri, `scheme ${u.protocol}`);
  if (!u.hostname) return fail('RSN_PATH_UNMAPPABLE', uri, 'no host');
  // The WHATWG parser has already removed `.`/`..` (also as %2e) and turned '\' into '/'; the
  // checks below are the second line of defence for whatever reaches us in a segment.
  const rawSegments = u.pathname.split('/').slice(1);
  const trailingSlash = rawSegments.length === 0 || rawSegments[rawSegments.length - 1] === '';
  if (trailingSlash) rawSegments.pop();
  const names = rawSegments.map((raw) => segmentName(uri, raw));
  let fileName = trailingSlash ? INDEX_FILE_NAME : names.pop()!;
  // `a?` and `a` are distinct URIs; WHATWG keeps the bare '?' in href but not in search.
  const hasQuery = u.href.split('#', 1)[0]!.includes('?');
  if (hasQuery) fileName += `?${escapeName(u.search.slice(1))}`;
  const parts = [hostDirName(u), ...names.map(fitName), fitName(fileName)];

  const root = resolve(mirrorDir);
  const full = resolve(root, ...parts);
  if (!full.startsWith(root + sep))
    return fail('RSN_PATH_ESCAPE', uri, 'resolved path leaves the mirror directory');
  return full;
}

/** Whether a file name (not a path) is one of the writer's temporary files. */
export function isTempFileName(name: string): boolean {
  return name.startsWith(TEMP_FILE_PREFIX);
}

/** A directory entry of the mirror, as the start-up sweep sees it (lstat: links not followed). */
export interface MirrorEntry {
  readonly name: string;
  /** A regular file: not a directory, nor a symbolic link (whatever it points to). */
  readonly isFile: boolean;
  /** Its status change time (ctime), ms since the epoch. */
  readonly changedAtMs: number;
}

/**
 * Whether the start-up sweep removes `entry`: a temporary file a process killed between creating
 * and renaming it left behind (nothing else ever removes one). Only a regular file with a temporary
 * name: no URI maps to one, and the writer never makes a link or a directory under such a name. And
 * only one last changed before this process started: nothing makes sure a single daemon owns a
 * mirror, so a temporary that changed since may be another process's, still being written. The
 * status change time, because the writer sets a temporary's mtime to the entry's lastmod (writer.ts).
 */
export function isLeftoverTemp(entry: MirrorEntry, startedAtMs: number): boolean {
  // Compared at the millisecond: `startedAtMs` is Date.now(), a ctime has sub-millisecond digits.
  return entry.isFile && isTempFileName(entry.name) && Math.floor(entry.changedAtMs) <= startedAtMs;
}
