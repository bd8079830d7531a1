#!/usr/bin/env node
// `pnpm demo [--faults] [--rate N] [--duration S] [--data DIR] [--hub-port P] [--source-port P]
// [--subscriber-port P] [--seed N]`: the live loopback demo.
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { runDemo } from './run.js';

function numberArg(what: string, min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${what} must be a number from ${min} to ${max}.`);
    }
    return n;
  };
}
const port = numberArg('a port', 0, 65_535);

const program = new Command('rsnotify-demo')
  .description('Run a hub, a simulated ResourceSync Source and a mirroring subscriber on 127.0.0.1')
  .showHelpAfterError()
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .option('--data <dir>', 'data directory (SQLite files, mirror)', './data')
  .option('--rate <n>', 'changes per second made by the Source', numberArg('--rate', 0.001), 50)
  .option(
    '--faults',
    'drop, reorder and duplicate notifications so catch-up can be seen at work',
    false,
  )
  .option(
    '--duration <seconds>',
    'stop by itself after this many seconds (0: until Ctrl-C)',
    numberArg('--duration', 0),
    0,
  )
  .option('--hub-port <port>', 'hub port', port, 8080)
  .option('--source-port <port>', 'Source simulator port', port, 8081)
  .option('--subscriber-port <port>', 'subscriber callback port', port, 8082)
  .option('--seed <n>', 'random seed of the Source simulator', numberArg('--seed', 0), 1)
  .parse();

const o = program.opts<{
  data: string;
  rate: number;
  faults: boolean;
  duration: number;
  hubPort: number;
  sourcePort: number;
  subscriberPort: number;
  seed: number;
}>();
// pnpm runs this script inside test/; a relative --data means relative to where `pnpm demo` was typed.
const dataDir = resolve(process.env.INIT_CWD ?? process.cwd(), o.data);

/** The EADDRINUSE error in a chain of causes, if any. */
function addressInUse(err: unknown): { port?: number } | undefined {
  for (let e = err; e instanceof Error; e = e.cause) {
    if ((e as { code?: unknown }).code === 'EADDRINUSE') return e as { port?: number };
  }
  return undefined;
}

const FLAG_OF_PORT = new Map([
  [o.hubPort, '--hub-port'],
  [o.sourcePort, '--source-port'],
  [o.subscriberPort, '--subscriber-port'],
]);
try {
  const result = await runDemo({
    dataDir,
    rate: o.rate,
    faults: o.faults,
    durationSeconds: o.duration,
    hubPort: o.hubPort,
    sourcePort: o.sourcePort,
    subscriberPort: o.subscriberPort,
    seed: o.seed,
    out: process.stdout,
  });
  process.exit(result.converged && result.inSync ? 0 : 1);
} catch (err) {
  const inUse = addressInUse(err);
  if (!inUse) throw err;
  const flag = inUse.port === undefined ? undefined : FLAG_OF_PORT.get(inUse.port);
  process.stderr.write(
    flag
      ? `rsnotify-demo: port ${inUse.port} is in use; choose another with ${flag} <port>\n`
      : 'rsnotify-demo: a port is in use; choose others with --hub-port, --source-port, --subscriber-port\n',
  );
  process.exit(2);
}
