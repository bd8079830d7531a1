// The raw-sender ceiling, run as its own process (like the hub): the same undici Agent the hub builds
// (createOutboundAgent: same connections per origin, pipelining 1, same guarded connector), the
// same bodies and headers, to the same callback URLs, at most one POST in flight per callback (the
// order a subscriber is owed) and at most `concurrency` in all. Nothing else: no store, no parse.
// Each POST is lib/bare-post.ts's bare `dispatch` (the hub's sender does the same plus its
// bookkeeping).
// Driven over IPC by the hub scenario: { cmd: 'run', ... } -> { done: n }.
import { createOutboundAgent } from '@rsnotify/shared';
import { barePost } from './bare-post.js';

interface RunCommand {
  readonly cmd: 'run';
  readonly callbacks: readonly string[];
  readonly perCallback: number;
  readonly concurrency: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

const connections = Number(process.env.CONNECTIONS ?? 16);
const agent = createOutboundAgent({ allowPrivateNetworks: true, connections });

function run(m: RunCommand): Promise<number> {
  const body = Buffer.from(m.body, 'latin1');
  const targets = m.callbacks.map((c) => {
    const u = new URL(c);
    return { origin: u.origin, path: `${u.pathname}${u.search}` };
  });
  const left = targets.map(() => m.perCallback);
  const total = targets.length * m.perCallback;
  // Ready callbacks in round-robin order; a callback goes back to the end after its POST completes.
  let ready: number[] = targets.map((_, i) => i);
  let head = 0;
  let inFlight = 0;
  let sent = 0;
  return new Promise((resolve, reject) => {
    const pump = (): void => {
      while (inFlight < m.concurrency && head < ready.length) {
        const i = ready[head++]!;
        const t = targets[i]!;
        inFlight++;
        barePost(agent, t.origin, t.path, m.headers, body).then(() => {
          inFlight--;
          sent++;
          if (--left[i]! > 0) ready.push(i);
          if (sent === total) resolve(sent);
          else pump();
        }, reject);
      }
      if (head > 4096) {
        ready = ready.slice(head);
        head = 0;
      }
    };
    pump();
  });
}

process.on('message', (m: RunCommand | { cmd: 'stop' }) => {
  if (m.cmd === 'stop') {
    void agent.close().finally(() => process.exit(0));
    return;
  }
  run(m).then(
    (n) => process.send!({ done: n }),
    (err: unknown) => process.send!({ error: String(err) }),
  );
});
process.send!({ ready: true });
