// The one way we read XML: saxes in namespace mode (RC-1: elements are matched by namespace URI),
// with the safety rules every entry point shares. A DOCTYPE is refused outright, before parsing,
// because ResourceSync never needs one and DTD entities are the XML bomb / XXE vector; saxes
// itself never expands DTD entities, and its `doctype` event is the backstop for streamed input.
// Well-formedness is checked in the same single pass (no separate validator run).
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { DocumentError } from '../errors/index.js';

/** RC-4: the community limit of 50 MB per document, as bytes (50 MiB). */
export const DEFAULT_MAX_BYTES = 52_428_800;

export type XmlTag = SaxesTagNS;

/** What a document builder receives; `line` is 1-based, for messages. */
export interface XmlHandler {
  open(tag: XmlTag, line: number): void;
  close(tag: XmlTag): void;
  text(text: string): void;
}

/** UTF-8 size of a string without encoding it when the answer is clear from its length. */
export function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length > maxBytes) return true;
  if (text.length * 3 <= maxBytes) return false;
  return Buffer.byteLength(text, 'utf8') > maxBytes;
}

export function tooLarge(bytes: number | undefined, maxBytes: number): DocumentError {
  return new DocumentError('RS_TOO_LARGE', `document larger than ${maxBytes} bytes`, { details: { maxBytes, bytes } });
}

export function doctypeForbidden(line?: number): DocumentError {
  return new DocumentError('RS_DOCTYPE_FORBIDDEN', `DOCTYPE / ENTITY declarations are not allowed${line ? ` (line ${line})` : ''}`, {
    details: line ? { line } : {},
  });
}

/**
 * Scans the prolog (everything before the root element) for `<!DOCTYPE` without parsing anything.
 * A DOCTYPE is only legal there; one anywhere later is a well-formedness error saxes reports.
 */
export function assertNoDoctype(xml: string): void {
  let i = 0;
  const n = xml.length;
  for (;;) {
    const lt = xml.indexOf('<', i);
    if (lt < 0 || lt + 1 >= n) return;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end < 0) return;
      i = end + 2;
    } else if (next === 0x21 /* ! */) {
      if (xml.startsWith('<!--', lt)) {
        const end = xml.indexOf('-->', lt + 4);
        if (end < 0) return;
        i = end + 3;
      } else {
        // `<!DOCTYPE`, `<!ENTITY` or anything else with `<!` before the root: refuse.
        throw doctypeForbidden(lineAt(xml, lt));
      }
    } else {
      return; // the root element starts here
    }
  }
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** An incremental, namespace-aware reader; errors become RS_XML_MALFORMED / RS_DOCTYPE_FORBIDDEN. */
export class XmlReader {
  private readonly parser: SaxesParser<{ xmlns: true; position: true }>;

  constructor(handler: XmlHandler) {
    const parser = new SaxesParser({ xmlns: true, position: true });
    this.parser = parser;
    parser.on('opentag', (tag) => handler.open(tag, parser.line));
    parser.on('closetag', (tag) => handler.close(tag));
    parser.on('text', (text) => handler.text(text));
    parser.on('cdata', (text) => handler.text(text));
    parser.on('doctype', () => { throw doctypeForbidden(parser.line); });
    parser.on('error', (err) => {
      throw new DocumentError('RS_XML_MALFORMED', `malformed XML: ${err.message}`, {
        cause: err,
        details: { line: parser.line, column: parser.column },
      });
    });
  }

  write(text: string): void {
    this.parser.write(text);
  }

  /** Ends the input: an unclosed element or a missing root is RS_XML_MALFORMED. */
  close(): void {
    this.parser.close();
  }
}

/** The namespace URI of the XMLNS attributes themselves. */
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
