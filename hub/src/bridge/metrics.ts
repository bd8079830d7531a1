// The bridge's metrics, on the hub's registry.
import { Counter, type Registry } from 'prom-client';

export class BridgeMetrics {
  readonly polls: Counter<'result'>;
  readonly published: Counter;
  readonly gaps: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    this.polls = new Counter({
      name: 'rsnotify_hub_bridge_polls_total',
      help: 'Polls of bridged Sources by result',
      labelNames: ['result'],
      registers,
    });
    this.published = new Counter({
      name: 'rsnotify_hub_bridge_notifications_total',
      help: 'Notifications the bridge made from Change Lists',
      registers,
    });
    this.gaps = new Counter({
      name: 'rsnotify_hub_bridge_coverage_gaps_total',
      help: 'Times the Change Lists did not prove an interval',
      registers,
    });
  }
}
