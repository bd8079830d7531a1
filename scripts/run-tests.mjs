#!/usr/bin/env node
// Runs every *.test.ts of the workspace with node's own test runner on the TypeScript sources.
// Node 20's --test expands no globs and finds no .ts files by itself, so we collect them here.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (e.g. `pnpm test hub/` or `pnpm test e2e`)
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const roots = ['shared/test', 'service-kit/test', 'hub/test', 'subscriber/test', 'test/src', 'test/e2e'];
const files = [];
function walk(dir) {
  let names;
  try { names = readdirSync(dir); } catch { return; }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
}
for (const r of roots) walk(join(root, r));
const filters = process.argv.slice(2);
const selected = files.sort().filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.RSNOTIFY_TEST_CONCURRENCY ?? '2';
const args = [
  '--conditions=@rsnotify/source', '--import', 'tsx', '--test',
  `--test-concurrency=${concurrency}`, '--test-timeout=180000', '--test-force-exit',
  ...selected,
];
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
