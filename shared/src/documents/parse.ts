// parseDocument: any ResourceSync document (or plain sitemap) from a string, in one pass.
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_XML_LIMITS,
  PrologGuard,
  Utf8SliceDecoder,
  XmlReader,
  decodeIfUtf8,
  decodeUtf8Strict,
  exceedsBytes,
  readCommonSubset,
  replayCommonSubset,
  resolveXmlLimits,
  tooLarge,
} from '../xml/index.js';
import { DocumentBuilder, type BuilderEvents } from './builder.js';
import type { Entry, ParseOptions, ResourceSyncDocument } from './model.js';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';

/** Runs the safety checks and the single parse pass; `events.entry` sees each entry as it closes. */
export function buildDocument(
  input: string | Uint8Array,
  options: ParseOptions,
  events: BuilderEvents,
): DocumentBuilder {
  checkByteSize(input, options);
  // Bytes are decoded strictly (RS_XML_NOT_UTF8); a string was decoded by the caller.
  const xml = typeof input === 'string' ? input : decodeUtf8Strict(input);
  if (typeof input === 'string' && exceedsBytes(xml, maxBytesOf(options)))
    throw tooLarge(undefined, maxBytesOf(options));
  const builder = new DocumentBuilder(options, events);
  if (readsAsCommonSubset(xml, builder, options)) return builder;
  new PrologGuard().feed(xml);
  const reader = fullReader(builder, options);
  reader.write(xml);
  reader.close();
  return builder;
}

const maxBytesOf = (options: ParseOptions): number => options.maxBytes ?? DEFAULT_MAX_BYTES;

function checkByteSize(input: string | Uint8Array, options: ParseOptions): void {
  const maxBytes = maxBytesOf(options);
  if (typeof input !== 'string' && input.byteLength > maxBytes)
    throw tooLarge(input.byteLength, maxBytes);
}

/** Bytes (or characters) handled between two yields to the event loop: a few ms each. */
const PARSE_SLICE = 64 * 1024;

const limitsOf = (options: ParseOptions) => resolveXmlLimits(DEFAULT_XML_LIMITS, options.limits);

function fullReader(builder: DocumentBuilder, options: ParseOptions): XmlReader {
  return new XmlReader(builder, limitsOf(options));
}

/**
 * The fast path (xml/common-subset.ts) for a document of one slice: true when it was read there and
 * its events handed to the builder; false when it must be read by the full reader, from the start.
 */
function readsAsCommonSubset(
  xml: string,
  builder: DocumentBuilder,
  options: ParseOptions,
): boolean {
  if (xml.length > PARSE_SLICE) return false;
  const document = readCommonSubset(xml, limitsOf(options));
  if (document === undefined) return false;
  replayCommonSubset(document, builder);
  return true;
}

/**
 * The same pass as buildDocument, yielding to the event loop between 64 KiB slices, so a large body
 * (a 16 MiB publish takes seconds) never holds a server's event loop for long. Bytes are decoded,
 * checked for a DOCTYPE and parsed slice by slice: no step runs over the whole input in one piece.
 */
export async function buildDocumentInSlices(
  input: string | Uint8Array,
  options: ParseOptions,
  events: BuilderEvents,
): Promise<DocumentBuilder> {
  checkByteSize(input, options);
  const builder = new DocumentBuilder(options, events);
  let decoded: string | undefined;
  if (typeof input === 'string') {
    if (exceedsBytes(input, maxBytesOf(options))) throw tooLarge(undefined, maxBytesOf(options));
    decoded = input;
  } else if (input.byteLength <= PARSE_SLICE) {
    // One slice of UTF-8 (a notification of a few entries): decoded in one call, with no
    // TextDecoder set up per document. Bytes that are not UTF-8 take the slice decoder below, so
    // their refusal (RS_XML_NOT_UTF8 with its byte offset) is the one it always was.
    decoded = decodeIfUtf8(input);
  }
  if (decoded !== undefined && readsAsCommonSubset(decoded, builder, options)) return builder;

  const reader = fullReader(builder, options);
  const prolog = new PrologGuard();
  const step = (text: string): void => {
    if (!prolog.done) prolog.feed(text);
    reader.write(text);
  };
  if (decoded !== undefined) {
    for (let i = 0; i < decoded.length; i += PARSE_SLICE) {
      if (i > 0) await yieldToEventLoop();
      step(decoded.slice(i, i + PARSE_SLICE));
    }
  } else {
    const bytes = input as Uint8Array;
    const decoder = new Utf8SliceDecoder();
    for (let off = 0; off < bytes.byteLength; off += PARSE_SLICE) {
      if (off > 0) await yieldToEventLoop();
      step(decoder.decode(bytes.subarray(off, off + PARSE_SLICE)));
    }
    step(decoder.decode(new Uint8Array(0), true));
  }
  reader.close();
  return builder;
}

/** Parses any ResourceSync document (safe: DOCTYPE refused, size-limited, nothing fetched). */
export function parseDocument(
  xml: string | Uint8Array,
  options: ParseOptions = {},
): ResourceSyncDocument {
  const entries: Entry[] = [];
  const builder = buildDocument(xml, options, { entry: (e) => entries.push(e) });
  return builder.document(entries);
}
