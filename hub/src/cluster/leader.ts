// Once-per-cluster jobs (pending verifications, lease expiry, pruning): run by the one process that
// holds a session advisory lock. The lock lives with that process's connection, so when the process
// dies (kill -9 included) PostgreSQL frees it and another process takes the jobs over within one
// attempt interval. With SQLite the only process is always the leader.
import type { Logger } from '../observability/index.js';
import type { LeaderLock } from '../store/index.js';

export interface LeaderJobs {
  stop(): Promise<void>;
}

export class ClusterLeader {
  private jobs: LeaderJobs | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The attempt in flight: one at a time, and close() waits for it (see close). */
  private attempting: Promise<void> | undefined;

  constructor(
    private readonly o: {
      lock: LeaderLock;
      logger: Logger;
      nodeId: string;
      startJobs: () => LeaderJobs;
      retryMs?: number;
    },
  ) {
    o.lock.onLost(() => void this.lost());
  }

  get isLeader(): boolean {
    return this.jobs !== undefined;
  }

  async start(): Promise<void> {
    await this.attempt();
    this.timer = setInterval(() => void this.attempt(), this.o.retryMs ?? 1_000);
    this.timer.unref();
  }

  private attempt(): Promise<void> {
    this.attempting ??= this.tryToLead().finally(() => (this.attempting = undefined));
    return this.attempting;
  }

  private async tryToLead(): Promise<void> {
    if (this.closed || this.jobs) return;
    if (!(await this.o.lock.tryAcquire()) || this.closed) return;
    this.jobs = this.o.startJobs();
    this.o.logger.info(
      { event: 'cluster.leader', node: this.o.nodeId },
      'this process runs the once-per-cluster jobs',
    );
  }

  private async lost(): Promise<void> {
    const jobs = this.jobs;
    this.jobs = undefined;
    if (jobs) {
      this.o.logger.warn(
        { event: 'cluster.leader_lost', node: this.o.nodeId },
        'leader connection lost; jobs stopped until the lock is taken again',
      );
      await jobs.stop();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    // An attempt in flight may still take the lock: released below with the rest, not left held
    // by a closed process (its connection would keep the cluster's jobs from every other hub).
    await this.attempting;
    const jobs = this.jobs;
    this.jobs = undefined;
    await jobs?.stop();
    await this.o.lock.release();
  }
}
