// XML 1.0 well-formedness starts with the encoding: bytes that are not UTF-8 (0xFF, the overlong
// C0 AF, an encoded surrogate) are refused, never replaced by U+FFFD and passed on (RN-1).
import { isUtf8 } from 'node:buffer';
import { DocumentError } from '../errors/index.js';

export function notUtf8(at?: number): DocumentError {
  return new DocumentError(
    'RS_XML_NOT_UTF8',
    `malformed XML: not valid UTF-8${at === undefined ? '' : ` near byte ${at}`}`,
    {
      details: at === undefined ? {} : { byte: at },
    },
  );
}

/** Decodes a whole document strictly; RS_XML_NOT_UTF8 when it is not UTF-8. A leading BOM is dropped. */
export function decodeUtf8Strict(bytes: Uint8Array): string {
  const text = decodeIfUtf8(bytes);
  if (text === undefined) throw notUtf8();
  return text;
}

/** The text of bytes that are UTF-8 (a leading BOM dropped); undefined for any that are not. */
export function decodeIfUtf8(bytes: Uint8Array): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Strict UTF-8 decoding piece by piece (a sequence split between pieces is joined; a leading BOM is
 * dropped): RS_XML_NOT_UTF8 with the offset of the piece the bad bytes are in. Used where a large
 * body is decoded in slices between yields to the event loop, and by the streaming reader.
 */
export class Utf8SliceDecoder {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;

  /** Decodes the next piece; `last` flushes (an unfinished sequence at the end is refused). */
  decode(piece: Uint8Array, last = false): string {
    try {
      const text = this.decoder.decode(piece, { stream: !last });
      this.offset += piece.byteLength;
      return text;
    } catch {
      throw notUtf8(this.offset);
    }
  }
}
