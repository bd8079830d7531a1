// PLACEHOLDER: the documents work replaces this file with real modules (parse, serialize, stream,
// notification, accessors) that keep these exact signatures.
import { DocumentError } from './errors.js';
import type {
  CapabilityList, Change, ChangeNotification, DocumentKind, Entry, LinkElement, Metadata,
  NotificationChannel, ParseOptions, ResourceSyncDocument, RootElement,
} from './model.js';

const todo = (): never => { throw new DocumentError('RS_XML_MALFORMED', 'not implemented yet'); };

/** Parses any ResourceSync document (safe: DOCTYPE refused, size-limited, nothing fetched). */
export function parseDocument(_xml: string, _options?: ParseOptions): ResourceSyncDocument { return todo(); }

/** Writes a document back; `parseDocument(serializeDocument(d))` equals `d`. */
export function serializeDocument(_doc: ResourceSyncDocument): string { return todo(); }

/** Parses and checks a change notification (RN-1, RN-2, RN-3, RN-10): RS_NOTIFICATION_INVALID otherwise. */
export function parseChangeNotification(_xml: string, _options?: ParseOptions): ChangeNotification { return todo(); }

/** Every change-notification channel of a Capability List (RA-1). */
export function notificationChannels(_doc: CapabilityList): NotificationChannel[] { return todo(); }

/** The change an entry of a Change List / notification describes, or undefined without rs:md/@change. */
export function entryToChange(_entry: Entry): Change | undefined { return todo(); }

export interface DocumentHeader {
  readonly root: RootElement;
  readonly kind: DocumentKind;
  readonly capability: string;
  readonly md: Metadata;
  readonly links: readonly LinkElement[];
}

export type DocumentStreamEvent = { readonly type: 'header'; readonly header: DocumentHeader } | { readonly type: 'entry'; readonly entry: Entry };

/**
 * Reads a document incrementally: one 'header' event (before the first entry, or at the end for an
 * empty document), then one 'entry' event per <url>/<sitemap>. Memory does not grow with the input.
 */
export async function* streamDocument(
  _chunks: AsyncIterable<Uint8Array | string>,
  _options?: ParseOptions,
): AsyncGenerator<DocumentStreamEvent> { todo(); }
