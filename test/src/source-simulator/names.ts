// Resource names and their URIs. Generated names are deliberately odd but legal (spaces, non-ASCII,
// '&', '=', a literal '%', query strings) and are percent-encoded exactly once, canonically, so the
// `loc` in every list and the key the server looks requests up by are the same string.
import type { Random } from './random.js';

/** Sub-delims plus ':' and '@' may stay literal in a path segment (RFC 3986 §3.3). */
const PATH_LITERALS: Record<string, string> = {
  '%24': '$',
  '%26': '&',
  '%2B': '+',
  '%2C': ',',
  '%3B': ';',
  '%3D': '=',
  '%3A': ':',
  '%40': '@',
};

/** Percent-encodes one path segment: UTF-8, upper-case hex, sub-delims kept literal. */
export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /%(?:24|26|2B|2C|3B|3D|3A|40)/g,
    (m) => PATH_LITERALS[m]!,
  );
}

/**
 * Percent-encodes one query key or value. '&', '=', '+' and "'" are encoded too: the first three
 * would change the meaning of the query, and WHATWG URL parsers encode "'" in queries of http URLs.
 */
export function encodeQueryComponent(component: string): string {
  return encodeURIComponent(component).replace(/'/g, '%27');
}

/** A resource name: decoded path segments below `/resources/`, and optional query pairs. */
export interface ResourceName {
  readonly segments: readonly string[];
  readonly query?: readonly (readonly [string, string])[];
}

/** The canonical encoded target below the base URL, e.g. `/resources/docs/a%20b.txt?id=1`. */
export function encodeResourceName(name: ResourceName): string {
  const path = `/resources/${name.segments.map(encodePathSegment).join('/')}`;
  if (!name.query || name.query.length === 0) return path;
  return `${path}?${name.query.map(([k, v]) => `${encodeQueryComponent(k)}=${encodeQueryComponent(v)}`).join('&')}`;
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/**
 * Canonical form of a request target, so that a client that encodes differently (lower-case hex,
 * a literal space or non-ASCII character, `%26` for '&' in a path) still finds the resource.
 * Undefined when the target has malformed percent-encoding.
 */
export function canonicalTarget(rawTarget: string): string | undefined {
  const hash = rawTarget.indexOf('#');
  const target = hash >= 0 ? rawTarget.slice(0, hash) : rawTarget;
  const q = target.indexOf('?');
  const rawPath = q >= 0 ? target.slice(0, q) : target;
  const segments: string[] = [];
  for (const seg of rawPath.split('/')) {
    const decoded = safeDecode(seg);
    if (decoded === undefined) return undefined;
    segments.push(encodePathSegment(decoded));
  }
  const path = segments.join('/');
  if (q < 0) return path;
  const rawQuery = target.slice(q + 1);
  if (rawQuery === '') return path;
  const pairs: string[] = [];
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const k = safeDecode(eq >= 0 ? pair.slice(0, eq) : pair);
    const v = eq >= 0 ? safeDecode(pair.slice(eq + 1)) : '';
    if (k === undefined || v === undefined) return undefined;
    pairs.push(
      eq >= 0 ? `${encodeQueryComponent(k)}=${encodeQueryComponent(v)}` : encodeQueryComponent(k),
    );
  }
  return `${path}?${pairs.join('&')}`;
}

// Directories never contain a '.', and every file name has an extension or a query, so a
// generated file name never equals a generated directory name: a mirror can always hold the set.
// Everything is lower-case NFC, so no two names differ only by case or Unicode normalisation.
const DIRECTORIES: readonly (readonly string[])[] = [
  [],
  ['docs'],
  ['docs', '2024'],
  ['data sets'],
  ['été'],
  ['fish & chips'],
  ['x+y'],
  ["o'neil"],
  ['日本'],
];
const EXTENSIONS = ['txt', 'json', 'html', 'xml', 'bin'] as const;

/** A fresh name with id `n` (unique per simulator). `oddness` is the probability of an odd name. */
export function generateName(rng: Random, n: number, oddness: number): ResourceName {
  const id = String(n).padStart(6, '0');
  if (!rng.chance(oddness)) return { segments: ['r', `item-${id}.${rng.pick(EXTENSIONS)}`] };
  const dir = rng.pick(DIRECTORIES);
  const ext = rng.pick(EXTENSIONS);
  switch (rng.int(10)) {
    case 0:
      return { segments: [...dir, `report ${id}.${ext}`] };
    case 1:
      return { segments: [...dir, `naïve café ${id}.${ext}`] };
    case 2:
      return { segments: [...dir, `データ-${id}.${ext}`] };
    case 3:
      return { segments: [...dir, `a&b=${id}.${ext}`] };
    case 4:
      return { segments: [...dir, `100% ${id}.${ext}`] };
    case 5:
      return { segments: [...dir, `q(${id})!;x,y.${ext}`] };
    case 6:
      return { segments: [...dir, `emoji-😀-${id}.${ext}`] };
    case 7:
      return {
        segments: [...dir, 'view.html'],
        query: [
          ['id', id],
          ['lang', 'fr'],
        ],
      };
    case 8:
      return {
        segments: [...dir, 'search'],
        query: [
          ['q', `a b ${id}`],
          ['page', 'é'],
        ],
      };
    default:
      return { segments: [...dir, `tilde~${id}.${ext}`] };
  }
}

/**
 * Quirk names real Sources have (the `pathQuirks` switch): a collection that is a resource itself
 * and has members (`coll/c1` and `coll/c1/m2.txt`: a file that is also a directory), and a name with
 * an encoded '/' (`a%2Fb 3.txt`, distinct from `a/b 3.txt`). `lastCollection` pairs members with
 * the collection made before them.
 */
export function generateQuirkName(
  rng: Random,
  n: number,
  memory: { lastCollection?: string },
): ResourceName {
  const id = String(n).padStart(6, '0');
  if (memory.lastCollection !== undefined && rng.chance(0.6)) {
    return { segments: ['coll', memory.lastCollection, `m${id}.txt`] };
  }
  if (rng.chance(0.5)) {
    memory.lastCollection = `c${id}`;
    return { segments: ['coll', memory.lastCollection] };
  }
  return { segments: ['slash', `a/b ${id}.txt`] };
}

/** The extension a name's content is generated for ('' when none). */
export function nameExtension(name: ResourceName): string {
  const last = name.segments[name.segments.length - 1] ?? '';
  const dot = last.lastIndexOf('.');
  return dot > 0 ? last.slice(dot + 1).toLowerCase() : '';
}
