// The Source simulator: a ResourceSync Source on 127.0.0.1 whose resources change under a seeded
// generator, that publishes every batch of changes as a change notification to a hub (RT-4) and in
// its Change Lists, and that can misbehave on demand (faults.ts). State changes are synchronous, so
// every document a client reads describes one consistent moment.
import { RsnotifyError, type DateTime } from '@rsnotify/shared';
import type {
  ExplicitChange,
  MadeNotification,
  ResourceSnapshotEntry,
  SimulatorOptions,
  SimulatorStats,
  SourceSimulator,
} from './api.js';
import { corruptBytes, mediaTypeFor } from './content.js';
import { ChangeListStore, type Batch } from './changelists.js';
import { handleControl } from './control.js';
import {
  capabilityList,
  changeList,
  changeListIndex,
  changeNotification,
  serialize,
  sourceDescription,
  sourceUrls,
  type SourceUrls,
} from './documents.js';
import {
  decideCorruption,
  decideNotificationFate,
  decideRequestFate,
  defaultFaults,
  updateFaults,
  type Faults,
  type RequestFate,
  type RequestKind,
} from './faults.js';
import { advertisedHub } from './channel.js';
import { nextChange, newResource, type ChangeIntent, type GeneratorOptions } from './generator.js';
import { canonicalTarget, encodeResourceName, nameExtension } from './names.js';
import { DEFAULT_RETRY, Publisher, type HubTarget, type PostRecord } from './publisher.js';
import { createRandom, type Random } from './random.js';
import { listen, type ListeningServer } from './server.js';
import { ResourceListSnapshots } from './resource-lists.js';
import {
  resourceHeaders,
  respond,
  type ServedDocument,
  type ServedResource,
  type SiteModel,
  type SiteResponse,
} from './site.js';
import { ResourceState, type ChangeRecord, type ResourceVersion } from './state.js';
import { createTimeline, type Timeline } from './timeline.js';

export class SimulatorError extends RsnotifyError {
  constructor(
    code: 'RSN_SIM_BAD_CHANGE' | 'RSN_SIM_CLOSED',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
    this.name = 'SimulatorError';
  }
}

interface Intent extends ChangeIntent {
  readonly uri?: string;
  readonly corrupt?: boolean;
}

const MADE_HISTORY = 1000;

class Simulator implements SourceSimulator, SiteModel {
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
  private readonly requestRng: Random;
  private readonly autoRng: Random;
  private readonly clock: () => number;
  private readonly generatorOptions: GeneratorOptions;
  private readonly maxPerNotification: number;
  /** `until` of the last batch made (the Change Lists' start before any). */
  private lastUntilTime: DateTime;
  private madeAny = false;
  private seq = 0;
  private changes = 0;
  private requests = 0;
  private changeListRequests = 0;
  private changeListIndexRequests = 0;
  private injectedErrors = 0;
  private readonly made: MadeNotification[] = [];
  private latestNotification: Buffer | undefined;
  private readonly corrupted = new Map<string, ServedResource>();
  /** Response headers built once per version. */
  private readonly served = new WeakMap<ResourceVersion, ServedResource>();
  private readonly resourceLists: ResourceListSnapshots;
  private readonly cache = new Map<string, { key: string; body: Buffer }>();
  private autoTimer: NodeJS.Timeout | undefined;
  private autoCarry = 0;
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
    this.requestRng = createRandom(seed, 3);
    this.autoRng = createRandom(seed, 4);
    this.clock = options.clock ?? Date.now;
    this.timeline = createTimeline(this.clock);
    this.resourceLists = new ResourceListSnapshots(
      this.urls,
      Math.max(1, options.pageSize ?? 1000),
      Math.max(1, options.resourceListSnapshots ?? 16),
    );
    this.maxPerNotification = Math.max(1, options.maxEntriesPerNotification ?? 100);
    const initial = Math.max(0, options.initialResources ?? 20);
    this.generatorOptions = {
      targetResources: options.targetResources ?? Math.max(initial, 100),
      ...(options.repeatProbability !== undefined
        ? { repeatProbability: options.repeatProbability }
        : {}),
      ...(options.oddNames !== undefined ? { oddNames: options.oddNames } : {}),
      ...(options.typicalMaxBytes !== undefined
        ? { typicalMaxBytes: options.typicalMaxBytes }
        : {}),
      pathQuirks: () => this.faults.pathQuirks,
      quirkMemory: {},
    };

    this.state = new ResourceState(this.baseUrl);
    // The initial resources predate the Change Lists: they are in the Resource List only.
    for (let i = 0; i < initial; i++) {
      const intent = newResource(this.changeRng, this.state, this.generatorOptions);
      const { micros, time } = this.timeline.tick(
        this.changeRng.between(1, 50),
        this.changeRng.int(1000),
      );
      this.state.applyChange({ ...intent, time, micros, legacy: false });
    }
    const start = this.timeline.tick(1).time;
    this.lastUntilTime = start;
    this.store = new ChangeListStore(start, this.clock(), {
      maxEntries: Math.max(1, options.changeListMaxEntries ?? 1000),
      maxAgeMs: options.changeListMaxAgeMs ?? 60_000,
      retentionMs: options.retentionMs ?? 300_000,
    });
    this.publisher = new Publisher({
      topicUrl: this.topicUrl,
      capabilityListUrl: this.capabilityListUrl,
      hub: () => this.hub(),
      retry: { ...DEFAULT_RETRY, ...options.retry },
      now: this.clock,
      ...(options.log ? { log: options.log } : {}),
    });
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
    this.make(n, (touched) =>
      nextChange(this.changeRng, this.state, touched, this.generatorOptions),
    );
  }

  async makeChanges(changes: readonly ExplicitChange[]): Promise<void> {
    this.assertOpen();
    const intents = this.planExplicit(changes);
    let i = 0;
    this.make(intents.length, () => intents[i++]!);
  }

  /** Checks a whole explicit batch against the state before anything is applied (atomic). */
  private planExplicit(changes: readonly ExplicitChange[]): Intent[] {
    const exists = new Map<string, boolean>();
    return changes.map((c, index) => {
      let target: string | undefined;
      let uri: string | undefined;
      let extension = 'txt';
      if (c.rawTarget !== undefined) {
        target = canonicalTarget(c.rawTarget);
        uri = this.baseUrl + c.rawTarget;
        const last = c.rawTarget.split('?')[0]!.split('/').pop() ?? '';
        extension = last.includes('.')
          ? last.slice(last.lastIndexOf('.') + 1).toLowerCase()
          : 'txt';
      } else if (c.path !== undefined) {
        const name = { segments: c.path.split('/'), ...(c.query ? { query: c.query } : {}) };
        target = encodeResourceName(name);
        extension = nameExtension(name) || 'txt';
      }
      if (target === undefined || !target.startsWith('/resources/')) {
        throw new SimulatorError(
          'RSN_SIM_BAD_CHANGE',
          `change ${index}: needs a path or a rawTarget below /resources/`,
          { index },
        );
      }
      const present = exists.get(target) ?? this.state.has(target);
      if ((c.change === 'created') === present) {
        throw new SimulatorError(
          'RSN_SIM_BAD_CHANGE',
          `change ${index}: cannot ${c.change} ${present ? 'existing' : 'missing'} ${target}`,
          { index, target },
        );
      }
      exists.set(target, c.change !== 'deleted');
      if (c.change === 'deleted')
        return { target, change: c.change, extension, ...(uri ? { uri } : {}) };
      const version = (this.state.get(target)?.version ?? 0) + 1;
      const bytes =
        c.bytes === undefined ? Buffer.from(`${target} v${version}\n`) : Buffer.from(c.bytes);
      return {
        target,
        change: c.change,
        extension,
        bytes,
        media: mediaTypeFor(extension),
        ...(uri ? { uri } : {}),
        ...(c.corrupt ? { corrupt: true } : {}),
      };
    });
  }

  /**
   * Applies `count` changes as one batch and publishes it: Change Lists (after the lag fault) and
   * notifications (after the notification faults), split per RN-13 into consecutive intervals.
   * Times are strictly increasing: from < every change time < until, and each part's from is the
   * previous part's until (RN-5).
   */
  private make(count: number, nextIntent: (touched: readonly string[]) => Intent): void {
    if (count === 0) return;
    const now = this.clock();
    const legacy = this.faults.specVersion === '1.0';
    const parts: Batch[] = [];
    const touched: string[] = [];
    let from = this.lastUntilTime;
    let changes: ChangeRecord[] = [];
    for (let i = 0; i < count; i++) {
      const intent = nextIntent(touched);
      const { micros, time } = this.timeline.tick(
        this.changeRng.between(1, 50),
        this.changeRng.int(1000),
      );
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
        const until = this.timeline.tick(
          this.changeRng.between(1, 50),
          this.changeRng.int(1000),
        ).time;
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
    const bytes = corruptBytes(this.contentFaultRng, version.bytes);
    const etag = `"corrupt-${version.sha256.slice(0, 16)}-${version.version}"`;
    // The server does not know it is lying: its headers describe the bytes it sends.
    this.corrupted.set(version.target, {
      bytes,
      etag,
      headers: resourceHeaders(
        this.urls,
        bytes,
        etag,
        version.media.contentType,
        version.modified.epochMs,
      ),
    });
    this.options.log?.('resource.corrupted_by_fault', { uri: version.uri });
  }

  start(ratePerSecond: number): void {
    this.assertOpen();
    this.pause();
    const interval = Math.max(5, this.options.batchIntervalMs ?? 100);
    const perTick = (Math.max(0, ratePerSecond) * interval) / 1000;
    const burstP = this.options.burstProbability ?? 0.02;
    const burstFactor = this.options.burstFactor ?? 10;
    // Batch sizes come from the seeded RNG, not from elapsed time, so a seed repeats the sequence.
    this.autoTimer = setInterval(() => {
      let size = perTick * (0.5 + this.autoRng.next());
      if (this.autoRng.chance(burstP)) size *= burstFactor;
      size += this.autoCarry;
      const count = Math.floor(size);
      this.autoCarry = size - count;
      try {
        this.make(count, (touched) =>
          nextChange(this.changeRng, this.state, touched, this.generatorOptions),
        );
      } catch (err) {
        this.options.log?.('simulator.batch_failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }, interval);
  }

  pause(): void {
    if (this.autoTimer) clearInterval(this.autoTimer);
    this.autoTimer = undefined;
  }

  get running(): boolean {
    return this.autoTimer !== undefined;
  }

  // ---- observation ---------------------------------------------------------------------------

  snapshot(): Map<string, ResourceSnapshotEntry> {
    const out = new Map<string, ResourceSnapshotEntry>();
    for (const v of this.state.versions())
      out.set(v.uri, { sha256: v.sha256, length: v.length, bytes: v.bytes });
    return out;
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
      requests: this.requests,
      changeListRequests: this.changeListRequests,
      changeListIndexRequests: this.changeListIndexRequests,
      injectedServerErrors: this.injectedErrors,
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

  // ---- SiteModel: what the server serves -----------------------------------------------------

  hub(): HubTarget | undefined {
    return advertisedHub(this.faults, this.hubTarget);
  }

  private cached(name: string, key: string, build: () => Buffer): Buffer {
    const hit = this.cache.get(name);
    if (hit && hit.key === key) return hit.body;
    const body = build();
    this.cache.set(name, { key, body });
    return body;
  }

  sourceDescription(): Buffer {
    return this.cached('description', '', () => serialize(sourceDescription(this.urls)));
  }

  capabilityList(): Buffer {
    const hub = this.hub()?.url;
    return this.cached('capabilitylist', hub ?? '', () =>
      serialize(capabilityList(this.urls, hub)),
    );
  }

  /** `at` is the until of the last batch: the state reflects exactly the changes up to it (RC-15). */
  resourceList(): Buffer {
    return this.resourceLists.list(this.state, this.lastUntilTime);
  }

  resourceListPart(snapshotId: number, page: number): Buffer | undefined {
    return this.resourceLists.part(snapshotId, page);
  }

  private lagInfo(): { completeUpTo?: DateTime } {
    const upTo = this.store.completeUpTo();
    return upTo ? { completeUpTo: upTo } : {};
  }

  /** Maintenance plus the history quirk, before any Change List document is served. */
  private maintainLists(): void {
    this.store.maintain(this.clock());
    if (this.faults.truncateHistoryNext > 0) {
      this.store.truncate(this.faults.truncateHistoryNext);
      this.faults.truncateHistoryNext = 0;
    }
  }

  changeListIndex(): ServedDocument {
    this.maintainLists();
    const omitFrom = this.faults.omitChangeListFrom > 0;
    const body = this.cached('changelist-index', `${this.store.revision}/${omitFrom}`, () => {
      // Drop cached bodies of lists that fell out of retention.
      const live = new Set(this.store.lists.map((l) => `changelist-${l.id}`));
      for (const name of this.cache.keys())
        if (name.startsWith('changelist-') && name !== 'changelist-index' && !live.has(name))
          this.cache.delete(name);
      return serialize(changeListIndex(this.urls, this.store.lists, omitFrom));
    });
    return { body, ...this.lagInfo() };
  }

  changeList(id: number): ServedDocument | undefined {
    this.maintainLists();
    const list = this.store.get(id);
    if (!list) return undefined;
    const omitFrom = this.faults.omitChangeListFrom > 0;
    const body = this.cached(`changelist-${id}`, `${list.revision}/${omitFrom}`, () =>
      serialize(changeList(this.urls, list, omitFrom)),
    );
    return { body, ...(list.until ? {} : this.lagInfo()) };
  }

  topicBody(): Buffer | undefined {
    return this.options.topicBody === 'empty' ? undefined : this.latestNotification;
  }

  resource(target: string): ServedResource | undefined {
    const v = this.state.get(target);
    if (!v) return undefined;
    const bad = this.corrupted.get(target);
    if (bad) return bad;
    let served = this.served.get(v);
    if (!served) {
      const etag = `"${v.sha256}"`;
      served = {
        bytes: v.bytes,
        etag,
        headers: resourceHeaders(this.urls, v.bytes, etag, v.media.contentType, v.modified.epochMs),
      };
      this.served.set(v, served);
    }
    return served;
  }

  // ---- server hooks ----------------------------------------------------------------------------

  respondTo(
    method: string,
    target: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
  ): SiteResponse {
    if (target.startsWith('/changelist')) this.changeListRequests++;
    if (target.split('?')[0] === '/changelist.xml') this.changeListIndexRequests++;
    return respond(this, method, target, headers);
  }

  requestFate(kind: RequestKind): RequestFate {
    this.requests++;
    const { fate, serverErrorNext } = decideRequestFate(this.faults, kind, (p) =>
      this.requestRng.chance(p),
    );
    this.faults.serverErrorNext = serverErrorNext;
    if (fate.serverError) this.injectedErrors++;
    return fate;
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
    fate: (kind) => sim.requestFate(kind),
    control: (method, target, body) => handleControl(sim, method, target, body),
    onError: (err) =>
      options.log?.('simulator.request_failed', {
        error: err instanceof Error ? err.message : String(err),
      }),
  });
  return sim;
}
