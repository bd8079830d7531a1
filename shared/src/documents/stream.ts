// streamDocument: the same model as parseDocument, read incrementally from chunks (large Change
// Lists, Resource Lists). Bytes are counted as they arrive, so an oversized body fails early; the
// events queued by one chunk are yielded before the next chunk is read, so memory stays flat.
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_STREAM_XML_LIMITS,
  PrologGuard,
  Utf8SliceDecoder,
  XmlReader,
  resolveXmlLimits,
  tooLarge,
} from '../xml/index.js';
import { DocumentBuilder, type DocumentHeader } from './builder.js';
import type { Entry, ParseOptions } from './model.js';

export type { DocumentHeader } from './builder.js';

export type DocumentStreamEvent =
  | { readonly type: 'header'; readonly header: DocumentHeader }
  | { readonly type: 'entry'; readonly entry: Entry };

/**
 * Reads a document incrementally: one 'header' event (before the first entry, or at the end for an
 * empty document), then one 'entry' event per <url>/<sitemap>. Memory does not grow with the input.
 * Byte chunks are decoded as UTF-8.
 */
export async function* streamDocument(
  chunks: AsyncIterable<Uint8Array | string>,
  options: ParseOptions = {},
): AsyncGenerator<DocumentStreamEvent> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  let queue: DocumentStreamEvent[] = [];
  const builder = new DocumentBuilder(options, {
    header: (header) => queue.push({ type: 'header', header }),
    entry: (entry) => queue.push({ type: 'entry', entry }),
  });
  const reader = new XmlReader(
    builder,
    resolveXmlLimits(DEFAULT_STREAM_XML_LIMITS, options.limits),
  );
  const decoder = new Utf8SliceDecoder();
  const prolog = new PrologGuard();
  const write = (text: string): void => {
    if (!prolog.done) prolog.feed(text);
    reader.write(text);
  };
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk, 'utf8') : chunk.byteLength;
    if (bytes > maxBytes) throw tooLarge(bytes, maxBytes);
    write(typeof chunk === 'string' ? chunk : decoder.decode(chunk));
    if (queue.length > 0) {
      const ready = queue;
      queue = [];
      yield* ready;
    }
  }
  write(decoder.decode(new Uint8Array(0), true));
  reader.close();
  builder.sendHeader();
  yield* queue;
}
