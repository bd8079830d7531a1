// `/_sim/*`: the simulator's own control surface, for a simulator run as a separate process (the
// CLI). Works through the public SourceSimulator API only. Never faulted (site.ts requestKind).
import { updateFaults, type Faults } from './faults.js';
import type { SiteResponse } from './site.js';

/** The part of the simulator the control endpoints use. */
export interface Controllable {
  readonly baseUrl: string;
  readonly faults: Faults;
  snapshot(): Map<string, { sha256: string; length: number }>;
  stats(): object;
  lastUntil(): string | undefined;
  changeBatch(count: number): Promise<void>;
  flush(): Promise<void>;
}

function json(status: number, value: unknown): SiteResponse {
  const body = Buffer.from(`${JSON.stringify(value)}\n`);
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'cache-control': 'no-cache',
    },
    body,
  };
}

/**
 * GET /_sim/state (URI -> sha256, length), GET /_sim/stats, GET|POST /_sim/faults (JSON switches),
 * POST /_sim/batch?count=N, POST /_sim/flush. Bad input throws (the server answers 400).
 */
export async function handleControl(
  sim: Controllable,
  method: string,
  target: string,
  body: string,
): Promise<SiteResponse> {
  const url = new URL(target, sim.baseUrl);
  switch (`${method} ${url.pathname}`) {
    case 'GET /_sim/state': {
      const resources: Record<string, { sha256: string; length: number }> = {};
      for (const [uri, e] of sim.snapshot())
        resources[uri] = { sha256: e.sha256, length: e.length };
      return json(200, { lastUntil: sim.lastUntil() ?? null, resources });
    }
    case 'GET /_sim/stats':
      return json(200, sim.stats());
    case 'GET /_sim/faults':
      return json(200, sim.faults);
    case 'POST /_sim/faults':
      updateFaults(sim.faults, JSON.parse(body || '{}') as Record<string, unknown>);
      return json(200, sim.faults);
    case 'POST /_sim/batch': {
      const count = Number(url.searchParams.get('count') ?? '1');
      if (!Number.isInteger(count) || count < 0 || count > 1_000_000)
        throw new RangeError('count must be an integer 0..1000000');
      await sim.changeBatch(count);
      return json(200, { lastUntil: sim.lastUntil() ?? null });
    }
    case 'POST /_sim/flush':
      await sim.flush();
      return json(200, { lastUntil: sim.lastUntil() ?? null });
    default:
      return json(404, { error: 'unknown control endpoint' });
  }
}
