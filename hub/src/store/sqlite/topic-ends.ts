// Where each topic's notifications end, in the SQLite engine (M-3: a new notification's seq is its
// topic's end + 1), without writing the topic's row at every publish. The stored notifications are
// the record: a topic ends at the highest seq among them, or at topics.last_seq where that is higher.
// last_seq is written only where notifications leave the store: pruning writes each topic's end
// there first (upkeep.ts), so a topic whose notifications were all pruned keeps counting from where
// it was, restarts included. Writing the row at every group commit dirtied one more page per commit
// (an UPDATE and a WAL frame): ~7 % of a publish's CPU in the bench's publish rounds.
//
// The repository and the bridge append through one TopicEnds on their shared connection. It
// remembers the ends it has read or moved; it forgets them all when another connection has
// committed since (PRAGMA data_version changes only for other connections' commits) and when a
// transaction that reserved failed (`appending`), so what it hands out always continues what is
// committed. The unique index on (topic_id, seq) refuses a seq handed out twice in any case.
import type Database from 'better-sqlite3';

/** A topic's end as SQL, for the row of `topics` named `alias` in the query. */
export function topicEndSql(alias: string): string {
  return `MAX(${alias}.last_seq, COALESCE((SELECT MAX(n.seq) FROM notifications n WHERE n.topic_id = ${alias}.id), 0))`;
}

/** Writes every topic's end into topics.last_seq: before notifications are deleted. */
export const PERSIST_TOPIC_ENDS_SQL = `UPDATE topics SET last_seq = ${topicEndSql('topics')}
  WHERE last_seq < ${topicEndSql('topics')}`;

export class TopicEnds {
  private readonly ends = new Map<number, number>();
  private readonly readEnd: Database.Statement<[number]>;
  private readonly readDataVersion: Database.Statement<[]>;
  private seenVersion: number | undefined;

  constructor(sqlite: Database.Database) {
    this.readEnd = sqlite
      .prepare(`SELECT ${topicEndSql('t')} FROM topics t WHERE t.id = ?`)
      .pluck() as Database.Statement<[number]>;
    this.readDataVersion = sqlite.prepare('PRAGMA data_version').pluck() as Database.Statement<[]>;
  }

  /**
   * PRAGMA data_version of this connection: it moves when another connection commits. The
   * repository's externalChangeMarker reads it too (one statement for the connection).
   */
  dataVersion(): number {
    return this.readDataVersion.get() as number;
  }

  /** The topic's end as committed (a topic with no row ends at 0). */
  read(topicId: number): number {
    return (this.readEnd.get(topicId) as number | undefined) ?? 0;
  }

  /**
   * Runs a write transaction that reserves seqs (`reserve` inside it); if it fails, at its body or
   * at its commit, what was reserved is forgotten.
   */
  appending<T>(transaction: () => T): T {
    try {
      return transaction();
    } catch (err) {
      this.ends.clear();
      this.seenVersion = undefined;
      throw err;
    }
  }

  /**
   * Inside `appending`: the seq of each new notification of `topicIds`, one per occurrence, in
   * order (seq order stays the order given per topic). The transaction inserts exactly those.
   */
  reserve(topicIds: readonly number[]): number[] {
    const version = this.dataVersion();
    if (version !== this.seenVersion) {
      this.ends.clear();
      this.seenVersion = version;
    }
    return topicIds.map((topicId) => {
      const seq = (this.ends.get(topicId) ?? this.read(topicId)) + 1;
      this.ends.set(topicId, seq);
      return seq;
    });
  }
}
