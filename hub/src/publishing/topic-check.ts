// RT-6: the hub MAY check, after relaying, that a Source's topic URI is conformant (RT-2: 200,
// application/xml, Link rel=self and rel=hub). Never blocking: the result is a log line and a metric.
import type { Dispatcher } from 'undici';
import {
  checkOutboundUrl,
  describeError,
  linksWithRel,
  parseLinkHeader,
  type OutboundPolicy,
} from '@rsnotify/shared';
import type { Logger, HubMetrics } from '../observability/index.js';
import { deliveryTarget } from '../outbound/index.js';
import { isXmlContentType } from './intake.js';

/** RT-2 judged on a HEAD answer: the list of problems, empty when conformant. Pure. */
export function topicProblems(
  status: number,
  contentType: string | undefined,
  linkHeader: string | undefined,
): string[] {
  const problems: string[] = [];
  if (status !== 200) problems.push(`HEAD answered ${status}, not 200`);
  if (!isXmlContentType(contentType) || !/^application\/xml/i.test(contentType ?? ''))
    problems.push(`Content-Type is ${contentType ?? 'missing'}, not application/xml`);
  const links = parseLinkHeader(linkHeader ?? null);
  if (linksWithRel(links, 'self').length === 0) problems.push('no Link rel="self"');
  if (linksWithRel(links, 'hub').length === 0) problems.push('no Link rel="hub"');
  return problems;
}

export class TopicChecker {
  private readonly lastChecked = new Map<string, number>();

  constructor(
    private readonly deps: {
      agent: Dispatcher;
      logger: Logger;
      metrics: HubMetrics;
      outbound: OutboundPolicy;
      now: () => number;
      intervalMs: number;
      timeoutMs: number;
    },
  ) {}

  /** Checks the topic at most once per interval, in the background. */
  maybeCheck(topic: string, topicAsSent: string): void {
    const now = this.deps.now();
    const last = this.lastChecked.get(topic);
    if (last !== undefined && now - last < this.deps.intervalMs) return;
    this.lastChecked.set(topic, now);
    void this.check(topicAsSent);
  }

  async check(topic: string): Promise<string[]> {
    let problems: string[];
    try {
      checkOutboundUrl(topic, this.deps.outbound);
      const target = deliveryTarget(topic);
      const res = await this.deps.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'HEAD',
        headersTimeout: this.deps.timeoutMs,
        bodyTimeout: this.deps.timeoutMs,
      });
      await res.body.dump().catch(() => undefined);
      const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(', ') : v);
      problems = topicProblems(
        res.statusCode,
        one(res.headers['content-type']),
        one(res.headers.link),
      );
    } catch (err) {
      problems = [`HEAD failed: ${describeError(err).message}`];
    }
    this.deps.metrics.topicChecks.inc({
      result: problems.length === 0 ? 'conformant' : 'noncompliant',
    });
    if (problems.length > 0)
      this.deps.logger.warn(
        { event: 'topic.noncompliant', topic, problems },
        'topic URI does not meet RT-2',
      );
    return problems;
  }
}
