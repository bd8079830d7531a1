// How committed deliveries reach the ordering lane. A delivery waits for the lane as a queued step
// that holds its body, while the bodies waiting that way stay under `queuedDeliveryBytes`: a
// lone delivery starts at once, from memory. Beyond that, the committed inbox row is the only
// copy (it is durable already, WS-11), and a read-back step feeds the rows to the ordering in id
// order, a batch at a time, until it has caught up. So a hub that delivers faster than the mirror
// applies for minutes (a Source changing a million resources) fills the disk's inbox, not the
// process's memory. Measured with 20,000 notifications of 100 entries each sent at 64 in flight
// (two runs each, the old build and this one in turn): when every one waited in memory the
// subscriber's RSS peaked at 556-557 MiB, with the read-back at 318-321 MiB (from 170-180 at the
// start); accepted in 7.8-7.9 s and 6.9-8.6 s, all applied after 53-72 s and 53-83 s.
//
// Order: the lane runs its steps in order, and once one delivery waits in the inbox every later
// one does too until the read-back has fed them all, so the ordering receives the rows in the order
// they were committed, as before. The read-back yields a turn of the event loop between rows, as
// the lane does between steps (context.ts): without it the same burst took 42 s to accept.
import type { InboxRow } from '../store/index.js';
import { nextTurnOfLoop, type RunnerContext } from './context.js';
import { receiveRow } from './notifications.js';

/** Rows read back from the inbox per step: the lane yields a turn (to intake) between steps. */
export const READ_BACK_BATCH = 64;

export class InboxFeed {
  /** Bytes of the bodies queued in memory for the lane and not yet fed. */
  private queuedBytes = 0;
  /** Set while deliveries wait in the inbox only: the first id to read back, the last handed over. */
  private spill?: { next: number; last: number };
  private readBackQueued = false;
  /** Deliveries waiting in the inbox only (status counts them as buffered). */
  waitingInInbox = 0;

  constructor(
    private readonly ctx: RunnerContext,
    private readonly onReadBack: (rows: number) => void,
  ) {}

  /** A delivery was committed to the inbox (ids ascend). */
  delivered(id: number, body: Buffer, receivedAt: number): void {
    const { ctx } = this;
    const limit = ctx.cfg.queuedDeliveryBytes;
    if (!this.spill && (this.queuedBytes === 0 || this.queuedBytes + body.length <= limit)) {
      this.queuedBytes += body.length;
      ctx.enqueue(async () => {
        this.queuedBytes -= body.length;
        if (!ctx.ready) return; // establishPosition() reads the inbox when it is done
        await receiveRow(ctx, id, body, receivedAt);
      });
      return;
    }
    if (this.spill) this.spill.last = id;
    else this.spill = { next: id, last: id };
    this.waitingInInbox++;
    this.queueReadBack();
  }

  private queueReadBack(): void {
    if (this.readBackQueued) return;
    this.readBackQueued = true;
    this.ctx.enqueue(() => this.readBack());
  }

  /** Feeds the next batch of rows that wait in the inbox only; queues itself until caught up. */
  private async readBack(): Promise<void> {
    this.readBackQueued = false;
    const { ctx } = this;
    const spill = this.spill;
    if (!spill) return;
    if (!ctx.ready) {
      // establishPosition() feeds every open row of the inbox once the position stands.
      this.spill = undefined;
      this.waitingInInbox = 0;
      return;
    }
    const rows = await ctx.rt.repo.listInboxRange(
      ctx.source.id,
      spill.next,
      spill.last,
      READ_BACK_BATCH,
    );
    await feedStoredRows(ctx, rows, (row) => {
      spill.next = row.id + 1;
      this.waitingInInbox--;
    });
    if (ctx.closed) return;
    this.onReadBack(rows.length);
    // Deliveries handed over meanwhile moved `last`; caught up only once past it. (No rows short of
    // `last` cannot happen: a row is pruned only once finished, and `last` was handed over.)
    if (rows.length > 0 && spill.next <= spill.last) return this.queueReadBack();
    this.spill = undefined;
    this.waitingInInbox = 0;
  }
}

/**
 * Feeds stored rows to the ordering in their order, with a turn of the event loop before each but
 * the first, so that intake reads the requests waiting meanwhile; `taking` is told of each row
 * before it is fed. Stops when the runner closes. (The read-back and the start-up feed use it.)
 */
export async function feedStoredRows(
  ctx: RunnerContext,
  rows: readonly InboxRow[],
  taking: (row: InboxRow) => void,
): Promise<void> {
  for (const [i, row] of rows.entries()) {
    if (i > 0) await nextTurnOfLoop();
    if (ctx.closed) return;
    taking(row);
    await receiveRow(ctx, row.id, row.body, row.receivedAt);
  }
}
