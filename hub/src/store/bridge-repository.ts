// The poll-to-push bridge's store contract, in domain nouns and apart from the hub's main repository:
// bridged Sources, where the bridge stands in each one's Change Lists, and the one transaction that
// turns a poll into stored notifications (a restart neither repeats nor skips one).
import type { NewNotification } from './repository.js';

export interface BridgeListState {
  readonly url: string;
  /** md from/until of the list, from the index or the list itself (lexical W3C datetimes). */
  readonly from?: string;
  readonly until?: string;
  /** Entries already published (or there before the bridge began): the list position. */
  readonly consumed: number;
  /** Identity of the last consumed entry, to notice a list rewritten under us. */
  readonly lastKey?: string;
  /** Closed and read to its end: never fetched again. */
  readonly complete: boolean;
  /** How far this list provably covered when last read. */
  readonly coveredTo?: string;
  readonly etag?: string;
  readonly lastModified?: string;
}

export interface BridgePosition {
  readonly capabilityListUrl?: string;
  /** The Change List or Change List Index polled. */
  readonly changeListUrl?: string;
  readonly discoveredAt?: number;
  readonly indexEtag?: string;
  readonly indexLastModified?: string;
  /** Everything up to here is published; undefined before the first successful poll. */
  readonly coveredTo?: string;
  /** `from` of the next notification. */
  readonly chainFrom?: string;
  /** The lists known, in index order. */
  readonly lists: readonly BridgeListState[];
}

export interface BridgedSourceRecord {
  readonly id: number;
  readonly name: string;
  readonly pollUrl: string;
  readonly intervalMs: number;
  readonly createdAt: number;
  readonly lastPollAt: number | undefined;
  readonly lastError: string | undefined;
  /** Moves with every committed poll (see commitPoll). */
  readonly generation: number;
  readonly position: BridgePosition;
}

export interface NewBridgedSource {
  readonly name: string;
  readonly pollUrl: string;
  readonly intervalMs: number;
  readonly now: number;
}

export interface BridgeRepository {
  /** RSN_BRIDGE_EXISTS when the name is taken. */
  addBridgedSource(s: NewBridgedSource): Promise<BridgedSourceRecord>;
  /** Config-file sources: added when missing; a changed poll URL starts over, a changed interval is kept. */
  ensureBridgedSource(s: NewBridgedSource): Promise<BridgedSourceRecord>;
  removeBridgedSource(name: string): Promise<boolean>;
  listBridgedSources(): Promise<BridgedSourceRecord[]>;
  getBridgedSource(name: string): Promise<BridgedSourceRecord | undefined>;
  /**
   * One transaction: the notifications are appended to their topics (seq = the topic's last seq + 1 each), the
   * position is saved and the generation moves on (PostgreSQL also wakes every process that
   * delivers the topics, as a publish does). `generation` is the one the poll read: when another
   * commit moved it meanwhile (another process polled the same Source) nothing is written and
   * RSN_BRIDGE_POSITION_MOVED is thrown, so two pollers can never publish the same entries twice.
   * Returns the appended (topicId, seq) in order.
   */
  commitPoll(
    id: number,
    poll: {
      readonly generation: number;
      readonly position: BridgePosition;
      readonly notifications: readonly NewNotification[];
      readonly now: number;
    },
  ): Promise<{ topicId: number; seq: number }[]>;
  recordPollOutcome(id: number, outcome: { at: number; error: string | undefined }): Promise<void>;
}
