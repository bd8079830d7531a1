// The cluster view on /metrics: queue depth over every process's subscriptions (from the saved
// cursors), live processes, and this process's claims.
import { Gauge } from 'prom-client';
import type { HubMetrics } from '../observability/index.js';
import type { PgClusterStore } from '../store/index.js';

export function registerClusterMetrics(
  metrics: HubMetrics,
  sources: {
    cluster: PgClusterStore;
    claims: () => number;
    liveNodes: () => number;
    leader: () => boolean;
  },
): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'rsnotify_hub_cluster_queue_depth',
    help: 'Notifications not yet delivered, summed over every subscription of the cluster (saved cursors)',
    registers,
    async collect() {
      try {
        this.set(await sources.cluster.clusterQueueDepth());
      } catch {
        /* database down: no sample */
      }
    },
  });
  new Gauge({
    name: 'rsnotify_hub_cluster_nodes',
    help: 'Live hub processes on this database',
    registers,
    collect() {
      this.set(sources.liveNodes());
    },
  });
  new Gauge({
    name: 'rsnotify_hub_delivery_claims',
    help: 'Subscriptions this process drives',
    registers,
    collect() {
      this.set(sources.claims());
    },
  });
  new Gauge({
    name: 'rsnotify_hub_cluster_leader',
    help: '1 when this process runs the once-per-cluster jobs',
    registers,
    collect() {
      this.set(sources.leader() ? 1 : 0);
    },
  });
}
