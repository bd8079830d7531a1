// The Source simulator: a ResourceSync Source on 127.0.0.1 whose resources change under a seeded
// generator, that publishes every batch of changes as a change notification to a hub (RT-4) and in
// its Change Lists, and that can misbehave on demand (faults.ts). State changes are synchronous, so
// every document a client reads describes one consistent moment.
import type { DateTime } from '@rsnotify/shared';
import type {
  ExplicitChange,
  MadeNotification,
  ResourceSnapshotEntry,
  SimulatorOptions,
  SimulatorStats,
  SourceSimulator,
} from './api.js';
import { corruptBytes } from './content.js';
import { ChangeListStore, type Batch } from './changelists.js';
import { handleControl } from './control.js';
import { changeNotification, serialize, sourceUrls, type SourceUrls } from './documents.js';
import {
  decideCorruption,
  decideNotificationFate,
  defaultFaults,
  isListServed,
  updateFaults,
  type Faults,
} from './faults.js';
import {
  changeEveryResource,
  generatorOptionsFrom,
  nextChange,
  newResource,
  type GeneratorOptions,
} from './generator.js';
import { SimulatorError, planExplicitChanges, type ExplicitIntent } from './explicit-changes.js';
import { advertisedHub } from './channel.js';
import { DEFAULT_RETRY, Publisher, type HubTarget, type PostRecord } from './publisher.js';
import { createRandom, type Random } from './random.js';
import { listen, type ListeningServer } from './server.js';
import { ResourceListSnapshots } from './resource-lists.js';
import { AutoChanges } from './auto-changes.js';
import { RequestAccounting, type ListRequest } from './request-log.js';
import { SiteDocuments } from './served-documents.js';
import { respond, type ServedResource, type SiteResponse } from './site.js';
import { ResourceState, type ChangeRecord, type ResourceVersion } from './state.js';
import { createTimeline, type Timeline } from './timeline.js';

const MADE_HISTORY = 1000;

class Simulator implements SourceSimulator {
  readonly urls: SourceUrls;
  readonly baseUrl: string;
  readonly wellKnownUrl: string;
  readonly capabilityListUrl: string;
  readonly resourceListUrl: string;
  readonly changeListIndexUrl: string;
  readonly topicUrl: string;
  readonly topicPrefix: string;
  readonly faults: Faults;

  private hubTarget: HubTarget | undefined;
  private readonly state: ResourceState;
  private readonly store: ChangeListStore;
  private readonly timeline: Timeline;
  private readonly publisher: Publisher;
  private readonly changeRng: Random;
  private readonly notificationRng: Random;
  private readonly contentFaultRng: Random;
  private readonly auto: AutoChanges;
  private readonly clock: () => number;
  private readonly generatorOptions: GeneratorOptions;
  private readonly maxPerNotification: number;
  /** `until` of the last batch made (the Change Lists' start before any). */
  private lastUntilTime: DateTime;
  private madeAny = false;
  private seq = 0;
  private changes = 0;
  readonly requestLog: RequestAccounting;
  private readonly site: SiteDocuments;
  private readonly made: MadeNotification[] = [];
  private latestNotification: Buffer | undefined;
  private readonly corrupted: Map<string, ServedResource>;
  private readonly maintenanceTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly server: ListeningServer,
    host: string,
    private readonly options: SimulatorOptions,
  ) {
    this.baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${server.port}`;
    this.urls = sourceUrls(this.baseUrl);
    this.wellKnownUrl = this.urls.wellKnownUrl;
    this.capabilityListUrl = this.urls.capabilityListUrl;
    this.resourceListUrl = this.urls.resourceListUrl;
    this.changeListIndexUrl = this.urls.changeListIndexUrl;
    this.topicUrl = this.urls.topicUrl;
    this.topicPrefix = `${this.baseUrl}/`;
    this.faults = defaultFaults(options.specVersion ?? '1.1');
    if (options.faults) updateFaults(this.faults, options.faults as Record<string, unknown>);
    // List-only mode: a Source that publishes Change Lists and no notifications (no hub, none advertised).
    if (options.hubUrl && !options.listOnly)
      this.hubTarget = { url: options.hubUrl, ...(options.token ? { token: options.token } : {}) };

    const seed = options.seed ?? 1;
    this.changeRng = createRandom(seed, 0);
    this.notificationRng = createRandom(seed, 1);
    this.contentFaultRng = createRandom(seed, 2);
    this.auto = new AutoChanges(
      createRandom(seed, 4),
      {
        intervalMs: options.batchIntervalMs ?? 100,
        burstProbability: options.burstProbability ?? 0.02,
        burstFactor: options.burstFactor ?? 10,
      },
      (count) => {
        try {
          this.makeRandom(count);
        } catch (err) {
          this.options.log?.('simulator.batch_failed', {
            error: err instanceof Error ? err.message : String(err),
          });
        }
      },
    );
    this.clock = options.clock ?? Date.now;
    this.timeline = createTimeline(this.clock);
    this.requestLog = new RequestAccounting(this.faults, createRandom(seed, 3), this.clock);
    this.maxPerNotification = Math.max(1, options.maxEntriesPerNotification ?? 100);
    const initial = Math.max(0, options.initialResources ?? 20);
    this.generatorOptions = generatorOptionsFrom(options, initial, () => this.faults.pathQuirks);

    this.state = new ResourceState(this.baseUrl);
    // The initial resources predate the Change Lists: they are in the Resource List only.
    for (let i = 0; i < initial; i++) {
      const intent = newResource(this.changeRng, this.state, this.generatorOptions);
      const { micros, time } = this.nextTick();
      this.state.applyChange({ ...intent, time, micros, legacy: false });
    }
    this.lastUntilTime = this.timeline.tick(1).time;
    this.store = new ChangeListStore(this.lastUntilTime, this.clock(), {
      maxEntries: Math.max(1, options.changeListMaxEntries ?? 1000),
      maxAgeMs: options.changeListMaxAgeMs ?? 60_000,
      retentionMs: options.retentionMs ?? 300_000,
    });
    this.publisher = new Publisher({
      topicUrl: this.topicUrl,
      capabilityListUrl: this.capabilityListUrl,
      hub: () => advertisedHub(this.faults, this.hubTarget),
      retry: { ...DEFAULT_RETRY, ...options.retry },
      now: this.clock,
      ...(options.log ? { log: options.log } : {}),
    });
    this.site = new SiteDocuments({
      urls: this.urls,
      state: this.state,
      store: this.store,
      resourceLists: new ResourceListSnapshots(
        this.urls,
        Math.max(1, options.pageSize ?? 1000),
        Math.max(1, options.resourceListSnapshots ?? 16),
      ),
      faults: this.faults,
      clock: this.clock,
      lastUntil: () => this.lastUntilTime,
      hub: () => advertisedHub(this.faults, this.hubTarget),
      topicBody: () => (this.options.topicBody === 'empty' ? undefined : this.latestNotification),
    });
    this.corrupted = this.site.corrupted;
    // Rollover by age, retention and the lag fault are driven by time, not only by requests.
    this.maintenanceTimer = setInterval(() => this.store.maintain(this.clock()), 200);
    this.maintenanceTimer.unref();
  }

  // ---- changes -------------------------------------------------------------------------------

  setHub(hubUrl: string, token?: string): void {
    if (this.options.listOnly) return;
    this.hubTarget = { url: hubUrl, ...(token ? { token } : {}) };
  }

  async changeBatch(count: number): Promise<void> {
    this.assertOpen();
    const n = Math.max(0, Math.floor(count));
    this.makeRandom(n);
  }

  private makeRandom(count: number): void {
    this.make(count, (touched) =>
      nextChange(this.changeRng, this.state, touched, this.generatorOptions),
    );
  }

  async makeChanges(changes: readonly ExplicitChange[]): Promise<void> {
    this.assertOpen();
    this.makeAll(planExplicitChanges(changes, this.baseUrl, this.state));
  }

  /** The next change time, its gap and jitter drawn from the seeded change stream. */
  private nextTick(): { micros: bigint; time: DateTime } {
    return this.timeline.tick(this.changeRng.between(1, 50), this.changeRng.int(1000));
  }

  private makeAll(intents: readonly ExplicitIntent[]): void {
    let i = 0;
    this.make(intents.length, () => intents[i++]!);
  }

  /**
   * Applies `count` changes as one batch and publishes it: Change Lists (after the lag fault) and
   * notifications (after the notification faults), split per RN-13 into consecutive intervals.
   * Times are strictly increasing: from < every change time < until, and each part's from is the
   * previous part's until (RN-5).
   */
  private make(count: number, nextIntent: (touched: readonly string[]) => ExplicitIntent): void {
    if (count === 0) return;
    const now = this.clock();
    const legacy = this.faults.specVersion === '1.0';
    const parts: Batch[] = [];
    const touched: string[] = [];
    let from = this.lastUntilTime;
    let changes: ChangeRecord[] = [];
    for (let i = 0; i < count; i++) {
      const intent = nextIntent(touched);
      const { micros, time } = this.nextTick();
      const record = this.state.applyChange({
        ...intent,
        time,
        micros,
        legacy,
        timelessDelete: this.faults.timelessDeletes > 0,
      });
      touched.push(intent.target);
      this.corrupted.delete(intent.target);
      if (record.version)
        this.maybeCorrupt(this.state.get(intent.target)!, intent.corrupt === true);
      // Quirk: a change the Source makes but never announces, in no notification and no Change
      // List; only a comparison with the Resource List (reconciliation) can find it.
      if (this.faults.loseChangeNext > 0) this.faults.loseChangeNext--;
      else changes.push(record);
      if (changes.length >= this.maxPerNotification || i === count - 1) {
        const until = this.nextTick().time;
        parts.push({ from, until, changes });
        from = until;
        changes = [];
      }
    }
    this.lastUntilTime = from;
    this.madeAny = true;
    this.changes += count;
    const visibleAt = now + this.faults.changeListLagMs;
    for (const part of parts) {
      this.store.enqueue(part, visibleAt, now);
      const body = serialize(changeNotification(this.urls, part));
      this.latestNotification = body;
      const n: MadeNotification = {
        seq: ++this.seq,
        from: part.from.lexical,
        until: part.until.lexical,
        entries: part.changes.length,
        body,
      };
      this.made.push(n);
      if (this.made.length > MADE_HISTORY) this.made.splice(0, this.made.length - MADE_HISTORY);
      const { fate, dropNext } = decideNotificationFate(this.faults, (p) =>
        this.notificationRng.chance(p),
      );
      this.faults.dropNext = dropNext;
      this.publisher.submit(n, fate);
    }
  }

  private maybeCorrupt(version: ResourceVersion, forced: boolean): void {
    const decision = decideCorruption(this.faults, (p) => this.contentFaultRng.chance(p));
    this.faults.corruptNext = decision.corruptNext;
    if (!forced && !decision.corrupt) return;
    this.site.serveCorrupted(version, corruptBytes(this.contentFaultRng, version.bytes));
    this.options.log?.('resource.corrupted_by_fault', { uri: version.uri });
  }

  start(ratePerSecond: number): void {
    this.assertOpen();
    this.auto.start(ratePerSecond);
  }

  pause(): void {
    this.auto.pause();
  }

  get running(): boolean {
    return this.auto.running;
  }

  // ---- observation ---------------------------------------------------------------------------

  snapshot(): Map<string, ResourceSnapshotEntry> {
    return this.state.snapshot();
  }

  corruptedUris(): string[] {
    return [...this.corrupted.keys()].map((t) => this.state.get(t)?.uri ?? this.baseUrl + t);
  }

  healCorruption(): void {
    this.corrupted.clear();
  }

  lastUntil(): string | undefined {
    return this.madeAny ? this.lastUntilTime.lexical : undefined;
  }

  notificationsMade(): readonly MadeNotification[] {
    return this.made;
  }

  postLog(): readonly PostRecord[] {
    return this.publisher.history;
  }

  stats(): SimulatorStats {
    return {
      resources: this.state.size,
      changes: this.changes,
      notifications: { ...this.publisher.stats },
      outstandingNotifications: this.publisher.outstanding,
      changeLists: this.store.lists.length,
      changeListPendingBatches: this.store.pendingBatches,
      corruptedResources: this.corrupted.size,
      ...this.requestLog.counts(),
      ...(this.madeAny ? { lastUntil: this.lastUntilTime.lexical } : {}),
    };
  }

  async flush(): Promise<void> {
    await this.publisher.flush();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pause();
    clearInterval(this.maintenanceTimer);
    await this.publisher.close();
    await this.server.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new SimulatorError('RSN_SIM_CLOSED', 'the simulator is closed');
  }

  // ---- server hooks ----------------------------------------------------------------------------

  respondTo(
    method: string,
    target: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): SiteResponse {
    this.requestLog.answering(target.split('?')[0]!);
    return respond(this.site, method, target, headers);
  }

  /** The busy-Source quirk: a list just served is followed at once by a change to every resource. */
  afterServed(path: string, status: number): void {
    if (this.faults.busyAfterListsNext === 0 || !isListServed(path, status)) return;
    this.faults.busyAfterListsNext--;
    this.makeAll(changeEveryResource(this.changeRng, this.state, this.generatorOptions));
  }

  listRequests(): readonly ListRequest[] {
    return this.requestLog.listRequests();
  }
}

/** Starts a Source simulator listening on 127.0.0.1 (port 0 = ephemeral unless given). */
export async function startSourceSimulator(
  options: SimulatorOptions = {},
): Promise<SourceSimulator> {
  const host = options.host ?? '127.0.0.1';
  const server = await listen(host, options.port ?? 0);
  let sim: Simulator;
  try {
    sim = new Simulator(server, host, options);
  } catch (err) {
    await server.close();
    throw err;
  }
  server.setHooks({
    respond: (method, target, headers) => sim.respondTo(method, target, headers),
    fate: (kind, path) => sim.requestLog.fate(kind, path),
    onServed: (status, _kind, req) => {
      sim.requestLog.served(req.path, status, req.headers, req.retryAfterS);
      sim.afterServed(req.path, status);
    },
    control: (method, target, body) => handleControl(sim, method, target, body),
    onError: (err) =>
      options.log?.('simulator.request_failed', {
        error: err instanceof Error ? err.message : String(err),
      }),
  });
  return sim;
}
