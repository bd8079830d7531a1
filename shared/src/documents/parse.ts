// parseDocument: any ResourceSync document (or plain sitemap) from a string, in one pass.
import {
  DEFAULT_MAX_BYTES,
  XmlReader,
  assertNoDoctype,
  exceedsBytes,
  tooLarge,
} from '../xml/safe-parse.js';
import { DEFAULT_XML_LIMITS, resolveXmlLimits } from '../xml/limits.js';
import { decodeUtf8Strict } from '../xml/utf8.js';
import { DocumentBuilder, type BuilderEvents } from './builder.js';
import type { Entry, ParseOptions, ResourceSyncDocument } from './model.js';

/** Runs the safety checks and the single parse pass; `events.entry` sees each entry as it closes. */
export function buildDocument(
  input: string | Uint8Array,
  options: ParseOptions,
  events: BuilderEvents,
): DocumentBuilder {
  const { xml, builder, reader } = prepare(input, options, events);
  reader.write(xml);
  reader.close();
  return builder;
}

function prepare(
  input: string | Uint8Array,
  options: ParseOptions,
  events: BuilderEvents,
): { xml: string; builder: DocumentBuilder; reader: XmlReader } {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (typeof input !== 'string' && input.byteLength > maxBytes)
    throw tooLarge(input.byteLength, maxBytes);
  // Bytes are decoded strictly (RS_XML_NOT_UTF8); a string was decoded by the caller.
  const xml = typeof input === 'string' ? input : decodeUtf8Strict(input);
  if (exceedsBytes(xml, maxBytes)) throw tooLarge(undefined, maxBytes);
  assertNoDoctype(xml);
  const builder = new DocumentBuilder(options, events);
  return {
    xml,
    builder,
    reader: new XmlReader(builder, resolveXmlLimits(DEFAULT_XML_LIMITS, options.limits)),
  };
}

/** Characters parsed between two yields to the event loop (about 15 ms of parsing). */
const PARSE_SLICE = 64 * 1024;

/**
 * The same pass as buildDocument, yielding to the event loop between 64 Ki-character slices, so a
 * large body (a 16 MiB publish takes seconds) never holds a server's event loop for long.
 */
export async function buildDocumentInSlices(
  input: string | Uint8Array,
  options: ParseOptions,
  events: BuilderEvents,
): Promise<DocumentBuilder> {
  const { xml, builder, reader } = prepare(input, options, events);
  for (let i = 0; i < xml.length; i += PARSE_SLICE) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    reader.write(xml.slice(i, i + PARSE_SLICE));
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
