// The simulator's view of the requests it gets: the serving faults decided per request (500s, slow
// answers, and 503 + Retry-After on the lists), the counters of stats(), and a log
// of Change List (Index) requests with their answer, so a test can tell a poller that sends
// conditional GETs and honours Retry-After from one that does not.
import {
  decideListUnavailable,
  decideRequestFate,
  isChangeListPath,
  isUnavailableInScope,
  type Faults,
  type RequestFate,
  type RequestKind,
} from './faults.js';
import type { Random } from './random.js';

export interface ListRequest {
  /** Epoch ms when answered. */
  readonly at: number;
  readonly path: string;
  readonly status: number;
  readonly userAgent: string | undefined;
  /** Sent If-None-Match or If-Modified-Since. */
  readonly conditional: boolean;
  /** The Retry-After (seconds) of a 503. */
  readonly retryAfterS?: number;
}

type Headers = Readonly<Record<string, string | string[] | undefined>>;

const LOG_LIMIT = 20_000;

export class RequestAccounting {
  requests = 0;
  changeListRequests = 0;
  changeListIndexRequests = 0;
  injectedErrors = 0;
  listUnavailable = 0;
  listNotModified = 0;
  private readonly log: ListRequest[] = [];

  constructor(
    private readonly faults: Faults,
    private readonly rng: Random,
    private readonly clock: () => number,
  ) {}

  /** The serving faults for one request (a 503 only ever hits the lists in its scope). */
  fate(kind: RequestKind, path: string): RequestFate {
    this.requests++;
    const { fate, serverErrorNext } = decideRequestFate(this.faults, kind, (p) =>
      this.rng.chance(p),
    );
    this.faults.serverErrorNext = serverErrorNext;
    if (fate.serverError) {
      this.injectedErrors++;
      return fate;
    }
    if (!isUnavailableInScope(this.faults, path)) return fate;
    const u = decideListUnavailable(this.faults, (p) => this.rng.chance(p));
    this.faults.listUnavailableNext = u.listUnavailableNext;
    if (u.retryAfterS === undefined) return fate;
    this.listUnavailable++;
    return { ...fate, unavailableRetryAfterS: u.retryAfterS };
  }

  /** Called for every request the site answered (not the injected 500s). */
  answering(path: string): void {
    if (path.startsWith('/changelist')) this.changeListRequests++;
    if (path === '/changelist.xml') this.changeListIndexRequests++;
  }

  served(path: string, status: number, headers: Headers, retryAfterS?: number): void {
    if (!isChangeListPath(path)) return;
    if (status === 304) this.listNotModified++;
    const ua = headers['user-agent'];
    this.log.push({
      at: this.clock(),
      path,
      status,
      userAgent: typeof ua === 'string' ? ua : undefined,
      conditional:
        headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined,
      ...(retryAfterS !== undefined ? { retryAfterS } : {}),
    });
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }

  /** The request counts of SimulatorStats. */
  counts() {
    return {
      requests: this.requests,
      changeListRequests: this.changeListRequests,
      changeListIndexRequests: this.changeListIndexRequests,
      injectedServerErrors: this.injectedErrors,
      listUnavailable: this.listUnavailable,
      listNotModified: this.listNotModified,
    };
  }

  listRequests(): readonly ListRequest[] {
    return this.log;
  }
}
