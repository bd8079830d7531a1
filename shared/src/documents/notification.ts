// The strict reader for change notifications, on the hub's publish path and the subscriber's
// intake: one parse pass, with the RN rules checked as the entries stream by.
import { compareDateTime } from '../time/index.js';
import { buildDocument, buildDocumentInSlices } from './parse.js';
import { DocumentError } from './errors.js';
import type {
  ChangeNotification,
  DocumentKind,
  Entry,
  ParseOptions,
  ResourceSyncDocument,
} from './model.js';
import type { BuilderEvents, DocumentBuilder, DocumentHeader } from './builder.js';

function invalid(reason: string, details: Record<string, unknown> = {}): DocumentError {
  return new DocumentError(
    'RS_NOTIFICATION_INVALID',
    `not a valid change notification: ${reason}`,
    { details: { reason, ...details } },
  );
}

function checkHeader(header: DocumentHeader): void {
  // RN-1
  if (header.root !== 'urlset')
    throw invalid(`root element is <${header.root}>, not <urlset> (RN-1)`);
  // RN-2
  if (header.capability !== 'change-notification') {
    throw invalid(
      `rs:md capability is ${JSON.stringify(header.capability)}, not "change-notification" (RN-2)`,
    );
  }
  // RN-3
  const { from, until } = header.md;
  if (!from || !until) throw invalid(`rs:md must carry both from and until (RN-3)`);
  if (compareDateTime(until, from) < 0)
    throw invalid(`until ${until.lexical} is before from ${from.lexical} (RN-3)`);
}

/** The RN checks as builder events; `keep` receives each checked entry, none: only check. */
function notificationEvents(keep?: (entry: Entry) => void): BuilderEvents {
  let index = 0;
  return {
    checkOnly: keep === undefined,
    // The header arrives before the first entry, so a wrong document fails before its entries are read.
    header: checkHeader,
    entry(entry) {
      // RN-10: every <url> has one rs:md with a valid change (values are checked by the parser).
      if (entry.md?.change === undefined)
        throw invalid(`entry ${index} (${entry.loc}) has no rs:md/@change (RN-10)`, {
          entry: index,
          loc: entry.loc,
        });
      index++;
      keep?.(entry);
    },
  };
}

const SKIP_UNKNOWN: ParseOptions = { unknownElements: 'skip' };

/** Notifications are relayed and applied as received, never re-serialised: unknown elements are skipped. */
function skipUnknown(options: ParseOptions): ParseOptions {
  if (options.unknownElements) return options;
  // The hub passes maxBytes only: a fresh object for that, the shared one for no options at all.
  for (const _ in options) return { ...options, unknownElements: 'skip' };
  return SKIP_UNKNOWN;
}

function checkKind(kind: DocumentKind): void {
  if (kind !== 'change-notification') throw invalid(`document kind is ${kind}`);
}

function finish(builder: DocumentBuilder, entries: Entry[]): ChangeNotification {
  const doc = builder.document(entries) as ResourceSyncDocument & Record<string, unknown>;
  checkKind(doc.kind);
  doc.from = doc.md.from!;
  doc.until = doc.md.until!;
  return doc as unknown as ChangeNotification;
}

/** Parses and checks a change notification (RN-1, RN-2, RN-3, RN-10): RS_NOTIFICATION_INVALID otherwise. */
export function parseChangeNotification(
  xml: string | Uint8Array,
  options: ParseOptions = {},
): ChangeNotification {
  const entries: Entry[] = [];
  return finish(
    buildDocument(
      xml,
      skipUnknown(options),
      notificationEvents((e) => entries.push(e)),
    ),
    entries,
  );
}

/** parseChangeNotification for servers: yields to the event loop every 64 Ki characters. */
export async function parseChangeNotificationInSlices(
  xml: string | Uint8Array,
  options: ParseOptions = {},
): Promise<ChangeNotification> {
  const entries: Entry[] = [];
  return finish(
    await buildDocumentInSlices(
      xml,
      skipUnknown(options),
      notificationEvents((e) => entries.push(e)),
    ),
    entries,
  );
}

/**
 * The checks of parseChangeNotificationInSlices (RN-1..RN-3, RN-10) without keeping the entries,
 * for a hub, whose parse only decides whether to accept the bytes it stores and relays (RT-7). A
 * 16 MiB notification has ~150,000 entries: kept until the end of the parse they grew the old
 * generation, and the collector's pauses grew with it (tens of ms each on a loaded machine).
 */
export async function checkChangeNotificationInSlices(
  xml: string | Uint8Array,
  options: ParseOptions = {},
): Promise<void> {
  const builder = await buildDocumentInSlices(xml, skipUnknown(options), notificationEvents());
  // The header (RN-1..RN-3 checked on it) decides the kind; no document object is built.
  checkKind(builder.sendHeader().kind);
}
