#!/usr/bin/env node
// `pnpm demo [--faults] [--rate N] [--duration S] [--data DIR]`: the live loopback demo.
import { resolve } from 'node:path';
import { Command } from 'commander';
import { runDemo } from './run.js';

const program = new Command('rsnotify-demo')
  .description('Run a hub, a simulated ResourceSync Source and a mirroring subscriber on 127.0.0.1')
  .option('--data <dir>', 'data directory (SQLite files, mirror)', './data')
  .option('--rate <n>', 'changes per second made by the Source', '50')
  .option('--faults', 'drop, reorder and duplicate notifications so catch-up can be seen at work', false)
  .option('--duration <seconds>', 'stop by itself after this many seconds (0: until Ctrl-C)', '0')
  .option('--hub-port <port>', 'hub port', '8080')
  .option('--source-port <port>', 'Source simulator port', '8081')
  .option('--subscriber-port <port>', 'subscriber callback port', '8082')
  .option('--seed <n>', 'random seed of the Source simulator', '1')
  .parse();

const o = program.opts<{ data: string; rate: string; faults: boolean; duration: string; hubPort: string; sourcePort: string; subscriberPort: string; seed: string }>();
// pnpm runs this script inside test/; a relative --data means relative to where `pnpm demo` was typed.
const dataDir = resolve(process.env.INIT_CWD ?? process.cwd(), o.data);
const result = await runDemo({
  dataDir, rate: Number(o.rate), faults: o.faults, durationSeconds: Number(o.duration),
  hubPort: Number(o.hubPort), sourcePort: Number(o.sourcePort), subscriberPort: Number(o.subscriberPort),
  seed: Number(o.seed), out: process.stdout,
});
process.exit(result.converged && result.inSync ? 0 : 1);
