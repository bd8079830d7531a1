// The measured arms of the hub benchmark: the raw-sender ceiling (lib/raw-sender.ts, driven over
// IPC), the hub's burst fan-out, its paced publish-to-receipt latency, and the durable publish rate
// next to a bare node:http server. Each returns what metered() saw of the measured process.
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'undici';
import { CURSOR_FLUSH_DELAY_MS } from '@rsnotify/hub';
import { metered, noteWindow, pool, probeArgs, spread } from './measure.js';
import {
  CONNECTIONS_PER_ORIGIN,
  HUB_IN_FLIGHT,
  repoRoot,
  linkFor,
  notification,
  now,
  type HubChild,
  type Receivers,
} from './hub-processes.js';

/** The raw sender process (lib/raw-sender.ts), driven over IPC. */
export class RawSender {
  private waiting: ((m: Record<string, unknown>) => void)[] = [];
  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: Record<string, unknown>) => this.waiting.shift()?.(m));
  }

  static async start(): Promise<RawSender> {
    const child = spawn(
      process.execPath,
      [
        '--conditions=@rsnotify/source',
        '--import',
        'tsx',
        ...probeArgs({ runsTsx: true }),
        'test/bench/lib/raw-sender.ts',
      ],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          CONNECTIONS: String(CONNECTIONS_PER_ORIGIN),
          BENCH_PROBE_NAME: 'raw',
        },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`raw sender exited ${code}`)));
    });
    return new RawSender(child);
  }

  get pid(): number {
    return this.child.pid!;
  }

  async run(
    callbacks: string[],
    perCallback: number,
    concurrency: number,
    headers: Record<string, string>,
    body: Buffer,
  ): Promise<void> {
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      this.waiting.push(resolve);
      this.child.send({
        cmd: 'run',
        callbacks,
        perCallback,
        concurrency,
        headers,
        body: body.toString('latin1'),
      });
    });
    if (reply.error)
      throw new Error(
        `raw sender: ${typeof reply.error === 'string' ? reply.error : JSON.stringify(reply.error)}`,
      );
  }

  stop(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

export interface Measured {
  perSecond: number;
  cpuUsPerOp: number;
  peakRssMiB: number;
  /** KiB the measured process sent towards storage per operation (/proc/<pid>/io). */
  writtenKiBPerOp?: number;
  concurrency?: number;
}

/** Concurrency settings the raw sender tries for `n` callbacks (at most one in flight per callback). */
export function rawSettings(n: number): number[] {
  // 16 in flight never won beyond 64 callbacks: left out there to keep the run short.
  return [
    ...new Set(
      [16, 64, HUB_IN_FLIGHT, 1024].filter((c) => n <= 64 || c > 16).map((c) => Math.min(c, n)),
    ),
  ];
}

/**
 * The ceiling for `n` subscribers: the raw sender POSTs the same body with the same headers the hub
 * sends (Content-Type and the stored Link header, no signature: the bench subscriptions have no
 * secret) to the same callbacks, `perCallback` each, and the best concurrency setting counts.
 */
export async function rawFanOut(
  raw: RawSender,
  receivers: Receivers,
  callbacks: string[],
  perCallback: number,
  body: Buffer,
  headers: Record<string, string>,
): Promise<Measured & { concurrency: number }> {
  let best: (Measured & { concurrency: number }) | undefined;
  const total = callbacks.length * perCallback;
  for (const c of rawSettings(callbacks.length)) {
    await receivers.reset();
    const m = await metered(raw.pid, async () => {
      const started = now();
      const done = receivers.reached(total);
      await raw.run(callbacks, perCallback, c, headers, body);
      const end = await done;
      noteWindow({
        arm: 'raw',
        n: callbacks.length,
        concurrency: c,
        start: started,
        end,
        pid: raw.pid,
        ops: total,
      });
      return total / ((end - started) / 1000);
    });
    if (!best || m.value > best.perSecond)
      best = {
        perSecond: m.value,
        cpuUsPerOp: (m.cpuMs * 1000) / total,
        peakRssMiB: m.peakRssMiB,
        concurrency: c,
      };
  }
  return best!;
}

export function publisher(hubUrl: string, token: string, topic: string, concurrency: number) {
  const agent = new Agent({ connections: concurrency, pipelining: 1 });
  const headers = {
    'content-type': 'application/xml',
    link: linkFor(topic, hubUrl),
    authorization: `Bearer ${token}`,
  };
  return {
    async post(body: Buffer): Promise<void> {
      const res = await request(hubUrl, { method: 'POST', headers, body, dispatcher: agent });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
    },
    close: () => agent.close(),
  };
}

/** Publishes in flight during a hub burst. */
export const BURST_PUBLISHES_IN_FLIGHT = 8;

/**
 * How long a burst's CPU is still metered after its last receipt: past the hub's cursor batch
 * window, so the batch of the burst's last deliveries counts for the burst (and not in the next
 * arm's round). The rate is unchanged: first publish to last receipt.
 */
export const BURST_SETTLE_MS = CURSOR_FLUSH_DELAY_MS + 50;

/** Hub burst: `notifications` publishes (8 in flight) fanned out to `n` subscribers; until the last receipt. */
export async function hubBurst(
  hub: HubChild,
  token: string,
  receivers: Receivers,
  topic: string,
  n: number,
  notifications: number,
): Promise<Measured> {
  const pub = publisher(hub.url, token, topic, BURST_PUBLISHES_IN_FLIGHT);
  const bodies = Array.from({ length: notifications }, (_, i) => notification(i));
  const total = notifications * n;
  try {
    await receivers.reset();
    const m = await metered(
      hub.child.pid!,
      async () => {
        const started = now();
        const done = receivers.reached(total);
        await pool(notifications, BURST_PUBLISHES_IN_FLIGHT, (i) => pub.post(bodies[i]!));
        const published = now();
        const end = await done;
        noteWindow({
          arm: hub.name,
          n,
          start: started,
          end,
          published,
          pid: hub.child.pid!,
          ops: total,
        });
        return total / ((end - started) / 1000);
      },
      { settleMs: BURST_SETTLE_MS },
    );
    return {
      perSecond: m.value,
      cpuUsPerOp: (m.cpuMs * 1000) / total,
      peakRssMiB: m.peakRssMiB,
      writtenKiBPerOp: m.writtenBytes / 1024 / total,
    };
  } finally {
    await pub.close();
  }
}

/** Paced: one notification at a time, each after the previous fan-out landed, receipt times recorded. */
export async function pacedLatency(
  hub: HubChild,
  token: string,
  receivers: Receivers,
  topic: string,
  n: number,
  samples: number,
): Promise<number[]> {
  const pub = publisher(hub.url, token, topic, 1);
  try {
    await receivers.reset(true);
    const publishedAt: number[] = [];
    for (let i = 0; i < samples; i++) {
      const landed = receivers.reached((i + 1) * n);
      publishedAt[i] = now();
      await pub.post(notification(i));
      await landed;
      await new Promise((r) => setTimeout(r, 2));
    }
    return (await receivers.records())
      .filter((r) => r.tag >= 0)
      .map((r) => r.at - publishedAt[r.tag]!);
  } finally {
    await pub.close();
  }
}

/** The best setting's figures, and each setting's (the fan-out burst publishes at 8 in flight). */
export type PublishRate = Measured & {
  concurrency: number;
  bySetting: ReadonlyMap<number, Measured>;
};

/** Durable publishes/s against the hub, or the same POSTs against a bare server, best of `settings`. */
export async function publishRate(
  arm: string,
  url: string,
  pid: number,
  token: string,
  hubUrl: string,
  total: number,
  settings: number[],
): Promise<PublishRate> {
  const bodies = Array.from({ length: 64 }, (_, i) => notification(1_000_000 + i));
  let best: (Measured & { concurrency: number }) | undefined;
  const bySetting = new Map<number, Measured>();
  for (const c of settings) {
    const agent = new Agent({ connections: c, pipelining: 1 });
    const headers = {
      'content-type': 'application/xml',
      link: linkFor('http://bench.test/publish-only', hubUrl),
      authorization: `Bearer ${token}`,
    };
    const send = async (i: number) => {
      const res = await request(url, {
        method: 'POST',
        headers,
        body: bodies[i % bodies.length],
        dispatcher: agent,
      });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}`);
    };
    try {
      await pool(Math.min(500, total), c, send); // connections open
      const m = await metered(pid, async () => {
        const started = now();
        await pool(total, c, send);
        const end = now();
        // Keyed by the concurrency in place of a fan-out size (lib/perf-summary.ts).
        noteWindow({
          arm: `${arm} publishes`,
          n: c,
          concurrency: c,
          start: started,
          end,
          pid,
          ops: total,
        });
        return total / ((end - started) / 1000);
      });
      const measured = {
        perSecond: m.value,
        cpuUsPerOp: (m.cpuMs * 1000) / total,
        peakRssMiB: m.peakRssMiB,
        writtenKiBPerOp: m.writtenBytes / 1024 / total,
        concurrency: c,
      };
      bySetting.set(c, measured);
      if (!best || m.value > best.perSecond) best = measured;
    } finally {
      await agent.close();
    }
  }
  return { ...best!, bySetting };
}

export function summary(list: Measured[]) {
  const rate = spread(list.map((m) => m.perSecond));
  return {
    rate,
    cpu: spread(list.map((m) => m.cpuUsPerOp)).median,
    rss: Math.max(...list.map((m) => m.peakRssMiB)),
    writtenKiB: spread(list.map((m) => m.writtenKiBPerOp ?? NaN)).median,
  };
}
