// RT-6 topic checks once per cluster: each process keeps its own per-topic interval, and the
// database lets only one process per interval actually send the HEAD.
import { TopicChecker } from '../publishing/index.js';
import type { PgClusterStore } from '../store/index.js';

export class ClusterTopicChecker extends TopicChecker {
  private readonly clusterIntervalMs: number;

  constructor(
    deps: ConstructorParameters<typeof TopicChecker>[0],
    private readonly cluster: PgClusterStore,
  ) {
    super(deps);
    this.clusterIntervalMs = deps.intervalMs;
  }

  override async check(topic: string): Promise<string[]> {
    let mine: boolean;
    try {
      mine = await this.cluster.claimTopicCheck(topic, this.clusterIntervalMs);
    } catch {
      mine = false;
    }
    return mine ? super.check(topic) : [];
  }
}
