// Publish intake: the ResourceSync fat POST (RT-4, RT-7, M-1, M-4, M-5) and generic WebSub
// hub.mode=publish (WH-21). Either way the notification is authorized by the owning Source's token
// (RT-5), stored in one transaction (seq = the topic's last seq + 1), and only then answered.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { concatInSlices } from '@rsnotify/service-kit';
import {
  checkOutboundUrl,
  describeError,
  formatLinkHeader,
  isRsnotifyError,
  checkChangeNotificationInSlices,
  type OutboundPolicy,
  type ParseOptions,
} from '@rsnotify/shared';
import type { Logger, HubMetrics } from '../observability/index.js';
import type { HubRepository, StoredNotification } from '../store/index.js';
import { authorizePublish, bearerToken, type TenantDirectory } from '../tenants/index.js';
import { admitPublish, type Admission, type AdmittedPublish } from './intake.js';
import type { Refusal } from '../errors/index.js';
import type { TopicChecker } from './topic-check.js';
import { deliveryTarget } from '../outbound/index.js';

/** Why a publish is refused (app.ts maps each to its status). */
export type PublishRefusal = Refusal &
  ('malformed' | 'not-owner' | 'missing-token' | 'wrong-token' | 'too-large' | 'topic-unreachable');

export type PublishResult =
  | { readonly ok: true; readonly notifications: readonly { topic: string; seq: number }[] }
  | {
      readonly ok: false;
      readonly refusal: PublishRefusal;
      readonly reason: string;
    };

export interface PublishingDeps {
  readonly store: HubRepository;
  readonly tenants: TenantDirectory;
  readonly logger: Logger;
  readonly metrics: HubMetrics;
  readonly openPublishing: boolean;
  readonly outbound: OutboundPolicy;
  readonly agent: Dispatcher;
  readonly hubUrl: string;
  readonly maxBodyBytes: number;
  readonly fetchTimeoutMs: number;
  readonly now: () => number;
  /** Hands a stored notification to delivery; true when a delivery was dispatched at once. */
  readonly onAccepted: (n: StoredNotification) => boolean;
  readonly topicChecker?: TopicChecker;
}

export class PublishingService {
  /** One options object for every check: shared's parse copies one that omits unknownElements. */
  private readonly checkOptions: ParseOptions;

  constructor(private readonly deps: PublishingDeps) {
    this.checkOptions = { maxBytes: deps.maxBodyBytes, unknownElements: 'skip' };
  }

  private reject(
    refusal: PublishRefusal,
    reason: string,
    code: string,
    fields: Record<string, unknown>,
  ): PublishResult {
    this.deps.metrics.publishRejected.inc({ reason: code.toLowerCase() }); // one label style: snake_case
    this.deps.logger.info(
      { event: 'publish.rejected', refusal, code, reason, ...fields },
      'publish refused',
    );
    return { ok: false, refusal, reason };
  }

  /** The header checks of a publish, before its body is read (refusals logged and counted here). */
  async admit(
    linkHeader: string | undefined,
    authorization: string | undefined,
  ): Promise<Admission> {
    const a = admitPublish(
      await this.deps.tenants.sources(),
      linkHeader,
      authorization,
      this.deps.openPublishing,
    );
    if (!a.ok)
      this.reject(a.refusal, a.reason, a.code, a.topic === undefined ? {} : { topic: a.topic });
    return a;
  }

  /**
   * RT-4 intake of a publish `admit` let in (its Link header and token were decided once, before
   * the body was read): `body` is the request body as received; it is stored and relayed byte for
   * byte.
   */
  async acceptNotification(req: {
    admission: AdmittedPublish;
    contentType: string;
    linkHeader: string;
    body: Buffer;
  }): Promise<PublishResult> {
    const { topic, source } = req.admission;
    try {
      // RN-1..RN-3 (RT-7: a malformed payload is refused). The parse is a check only: the stored bytes are the received ones.
      await checkChangeNotificationInSlices(req.body, this.checkOptions);
    } catch (err) {
      const d = describeError(err);
      if (isRsnotifyError(err))
        return this.reject(
          d.code === 'RS_TOO_LARGE' ? 'too-large' : 'malformed',
          d.message,
          d.code ?? 'invalid',
          { topic, source: source?.name },
        );
      throw err;
    }
    const receivedAt = this.deps.now();
    const stored = await this.store(topic, req.contentType, req.linkHeader, req.body, receivedAt);
    this.deps.metrics.notificationsAccepted.inc({ kind: 'resourcesync' });
    if (this.deps.logger.isLevelEnabled('debug')) {
      this.deps.logger.debug(
        {
          event: 'publish.accepted',
          topic,
          seq: stored.seq,
          bytes: req.body.length,
          source: source?.name,
        },
        'notification accepted',
      );
    }
    this.deps.topicChecker?.maybeCheck(topic, req.admission.topicAsSent);
    return { ok: true, notifications: [{ topic, seq: stored.seq }] };
  }

  /** WH-21, M-1: a thin ping; the hub fetches each topic fresh and distributes it with its Content-Type. */
  async publishTopics(
    topics: readonly string[],
    authorization: string | undefined,
  ): Promise<PublishResult> {
    const sources = await this.deps.tenants.sources();
    for (const topic of topics) {
      const auth = authorizePublish(
        sources,
        topic,
        bearerToken(authorization),
        this.deps.openPublishing,
      );
      if (!auth.ok) return this.reject(auth.refusal, auth.reason, 'unauthorized', { topic });
    }
    const fetched: { topic: string; contentType: string; body: Buffer }[] = [];
    for (const topic of topics) {
      const r = await this.fetchTopic(topic);
      if (!r.ok)
        return this.reject(
          'topic-unreachable',
          `could not fetch ${topic}: ${r.reason}`,
          'fetch_failed',
          { topic },
        );
      fetched.push({ topic, ...r });
    }
    const out: { topic: string; seq: number }[] = [];
    for (const f of fetched) {
      // WH-17: the hub's own Link header for a fetched topic: the topic as self, this hub as hub.
      const link = formatLinkHeader([
        { href: f.topic, rel: 'self' },
        { href: this.deps.hubUrl, rel: 'hub' },
      ]);
      const stored = await this.store(f.topic, f.contentType, link, f.body, this.deps.now());
      this.deps.metrics.notificationsAccepted.inc({ kind: 'websub' });
      out.push({ topic: f.topic, seq: stored.seq });
    }
    return { ok: true, notifications: out };
  }

  private async store(
    topic: string,
    contentType: string,
    linkHeader: string,
    body: Buffer,
    receivedAt: number,
  ): Promise<StoredNotification> {
    const { topicId, seq } = await this.deps.store.appendNotification({
      topicUrl: topic,
      contentType,
      linkHeader,
      body,
      receivedAt,
    });
    const stored: StoredNotification = { topicId, seq, receivedAt, contentType, linkHeader, body };
    // A delivery dispatched at once is written a turn later (undici writes a request on an idle
    // keep-alive socket a turn after its dispatch): the answer waits for that turn, or the
    // answer's own work would delay the delivery (0.3-0.4 ms on publish-to-file; bench/). Under a
    // burst, subscriptions are busy, nothing is dispatched here and nothing waits.
    if (this.deps.onAccepted(stored)) await yieldToEventLoop();
    return stored;
  }

  private async fetchTopic(
    topic: string,
  ): Promise<{ ok: true; contentType: string; body: Buffer } | { ok: false; reason: string }> {
    try {
      checkOutboundUrl(topic, this.deps.outbound);
      const target = deliveryTarget(topic);
      const res = await this.deps.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'GET',
        headersTimeout: this.deps.fetchTimeoutMs,
        bodyTimeout: this.deps.fetchTimeoutMs,
      });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length;
        if (size > this.deps.maxBodyBytes) {
          res.body.destroy();
          return { ok: false, reason: `body larger than ${this.deps.maxBodyBytes} bytes` };
        }
        chunks.push(chunk as Buffer);
      }
      if (res.statusCode < 200 || res.statusCode > 299)
        return { ok: false, reason: `status ${res.statusCode}` };
      const ct = res.headers['content-type'];
      const contentType = (Array.isArray(ct) ? ct[0] : ct) ?? 'application/octet-stream';
      return { ok: true, contentType, body: await concatInSlices(chunks, size) };
    } catch (err) {
      const d = describeError(err);
      return { ok: false, reason: d.code ? `${d.code}: ${d.message}` : d.message };
    }
  }
}
