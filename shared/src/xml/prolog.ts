// The prolog check: a DOCTYPE is refused outright, before parsing, because ResourceSync never needs
// one and DTD entities are the XML bomb / XXE vector. It looks only at the prolog (everything before
// the root element; a DOCTYPE anywhere later is a well-formedness error saxes reports), and it reads
// its input in pieces, so a document decoded slice by slice is checked as its slices arrive.
import { DocumentError } from '../errors/index.js';

export function doctypeForbidden(line?: number): DocumentError {
  return new DocumentError(
    'RS_DOCTYPE_FORBIDDEN',
    `DOCTYPE / ENTITY declarations are not allowed${line ? ` (line ${line})` : ''}`,
    {
      details: line ? { line } : {},
    },
  );
}

type PrologState = 'outside' | 'pi' | 'comment' | 'root';

/**
 * Scans the prolog incrementally: processing instructions and comments are skipped, `<!` anything
 * else (`<!DOCTYPE`, `<!ENTITY`) is refused, the first other `<` is the root element and ends the
 * scan. Each piece is looked at once (a few characters of a split marker are carried over), so the
 * cost is linear in the prolog whatever the slicing.
 */
export class PrologGuard {
  private state: PrologState = 'outside';
  private carry = '';
  private line = 1;

  /** True once the root element has started: nothing after it needs this check. */
  get done(): boolean {
    return this.state === 'root';
  }

  /** Looks at the next piece of the document; throws RS_DOCTYPE_FORBIDDEN. Returns `done`. */
  feed(piece: string): boolean {
    if (this.state === 'root') return true;
    const text = this.carry === '' ? piece : this.carry + piece;
    this.carry = '';
    const n = text.length;
    let i = 0;
    for (;;) {
      if (this.state === 'pi' || this.state === 'comment') {
        const marker = this.state === 'pi' ? '?>' : '-->';
        const end = text.indexOf(marker, i);
        if (end < 0) {
          // Keep the last characters that could begin the end marker.
          const keep = Math.max(i, n - (marker.length - 1));
          this.countLines(text, i, keep);
          this.carry = text.slice(keep);
          return false;
        }
        this.countLines(text, i, end);
        i = end + marker.length;
        this.state = 'outside';
        continue;
      }
      const lt = text.indexOf('<', i);
      if (lt < 0) {
        this.countLines(text, i, n);
        return false;
      }
      this.countLines(text, i, lt);
      const next = lt + 1 < n ? text.charCodeAt(lt + 1) : -1;
      if (next === -1 || (next === 0x21 /* ! */ && n - lt < 4)) {
        this.carry = text.slice(lt); // not enough to tell yet
        return false;
      }
      if (next === 0x3f /* ? */) {
        this.state = 'pi';
        i = lt + 2;
      } else if (next === 0x21 /* ! */) {
        if (!text.startsWith('<!--', lt)) throw doctypeForbidden(this.line);
        this.state = 'comment';
        i = lt + 4;
      } else {
        this.state = 'root';
        return true;
      }
    }
  }

  private countLines(text: string, from: number, to: number): void {
    // charCodeAt, not indexOf: indexOf would look past `to` for a newline that may come much later.
    for (let at = from; at < to; at++) if (text.charCodeAt(at) === 0x0a) this.line++;
  }
}

/** PrologGuard over a whole document at once. */
export function assertNoDoctype(xml: string): void {
  new PrologGuard().feed(xml);
}
