// One arm of the notification check bench (scenarios/check.ts) in a process of its own: V8's
// feedback for saxes's code is per copy of saxes and per process, and arms that shared a process
// slowed each other (a parser of another layout made saxes's hot functions polymorphic).
// Usage: check-child.ts <bare|check|parse> <shared dist index.js> <entries> <documents>
// Prints the CPU µs per document: the median of three batches, after a warm-up batch of the same
// size (tiering up and its compiler threads are charged to the process's CPU time).
import { SaxesParser } from 'saxes';
import type * as Shared from '@rsnotify/shared';
import { notification } from './hub-processes.js';

const [arm, sharedIndex, entriesArg, documentsArg] = process.argv.slice(2);
const entries = Number(entriesArg);
const documents = Number(documentsArg);
const body = notification(1, entries);

async function runner(): Promise<() => unknown> {
  if (arm === 'bare') {
    return () => {
      const parser = new SaxesParser({ xmlns: false });
      parser.write(body.toString('utf8'));
      parser.close();
    };
  }
  const shared = (await import(sharedIndex!)) as typeof Shared;
  if (arm === 'check') return () => shared.checkChangeNotificationInSlices(body);
  if (arm === 'parse') return () => shared.parseChangeNotification(body);
  throw new Error(`unknown arm ${arm}`);
}

async function batch(run: () => unknown, n: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < n; i++) await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / n;
}

const run = await runner();
await batch(run, documents);
const batches = [
  await batch(run, documents),
  await batch(run, documents),
  await batch(run, documents),
];
process.stdout.write(String(batches.sort((a, b) => a - b)[1]));
