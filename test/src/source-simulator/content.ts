// Resource bytes and media types. Content is generated from the seeded RNG, carries the resource's
// version so every update really changes the bytes, and includes the edge cases a mirror must handle
// (empty files, non-ASCII text, binary data, an occasional larger body).
import type { Random } from './random.js';

export interface MediaType {
  /** For `rs:md/@type` (RC-27: the IANA media type). */
  readonly type: string;
  /** For the HTTP `Content-Type` header. */
  readonly contentType: string;
}

const MEDIA: Record<string, MediaType> = {
  txt: { type: 'text/plain', contentType: 'text/plain; charset=utf-8' },
  json: { type: 'application/json', contentType: 'application/json' },
  html: { type: 'text/html', contentType: 'text/html; charset=utf-8' },
  xml: { type: 'application/xml', contentType: 'application/xml' },
  bin: { type: 'application/octet-stream', contentType: 'application/octet-stream' },
};

export function mediaTypeFor(extension: string): MediaType {
  return MEDIA[extension] ?? MEDIA.txt!;
}

const WORDS = [
  'source',
  'destination',
  'change',
  'list',
  'notification',
  'hub',
  'mirror',
  'résumé',
  'naïve',
  'über',
  'データ',
  'archive',
  'library',
  'sitemap',
  'capability',
  '&',
  '<tag>',
  'lorem',
  'ipsum',
];

export interface ContentOptions {
  /** Upper bound of a typical body (bytes, default 2048); an occasional body is up to 32 times larger. */
  readonly typicalMaxBytes?: number;
}

function words(rng: Random, bytes: number): string {
  const out: string[] = [];
  let size = 0;
  while (size < bytes) {
    const w = rng.pick(WORDS);
    out.push(w);
    size += Buffer.byteLength(w) + 1;
  }
  return out.join(' ');
}

/** Bytes for version `version` of the resource at `uri` with the given extension. */
export function generateContent(
  rng: Random,
  uri: string,
  extension: string,
  version: number,
  options: ContentOptions = {},
): Buffer {
  const max = options.typicalMaxBytes ?? 2048;
  const roll = rng.next();
  // ~2% empty bodies where the format allows them, ~2% large ones.
  if (roll < 0.02 && (extension === 'txt' || extension === 'bin')) return Buffer.alloc(0);
  const size = roll > 0.98 ? rng.between(max, max * 32) : rng.between(16, max);
  switch (extension) {
    case 'bin': {
      const buf = Buffer.allocUnsafe(size);
      for (let i = 0; i < size; i++) buf[i] = rng.int(256);
      return buf;
    }
    case 'json':
      return Buffer.from(JSON.stringify({ uri, version, text: words(rng, size) }));
    case 'html':
      return Buffer.from(
        `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>v${version}</title></head>` +
          `<body><p>${words(rng, size).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p></body></html>\n`,
      );
    case 'xml':
      return Buffer.from(
        `<?xml version="1.0" encoding="UTF-8"?>\n<doc version="${version}">` +
          `${words(rng, size).replace(/&/g, '&amp;').replace(/</g, '&lt;')}</doc>\n`,
      );
    default:
      return Buffer.from(`${uri} v${version}\n${words(rng, size)}\n`);
  }
}

/** Different bytes for the hash-mismatch fault: same length when possible, so only a hash check notices. */
export function corruptBytes(rng: Random, bytes: Buffer): Buffer {
  if (bytes.length === 0) return Buffer.from('corrupted');
  const out = Buffer.from(bytes);
  const i = rng.int(out.length);
  out[i] = (out[i]! ^ (1 + rng.int(255))) & 0xff;
  return out;
}
