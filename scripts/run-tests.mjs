#!/usr/bin/env node
// Runs every *.test.ts of the workspace with node's own test runner on the TypeScript sources.
// Each file may take up to 7 min: the multi-process e2e suites (hub cluster, crash) need it on a loaded 2-core machine.
// Node 20's --test expands no globs and finds no .ts files by itself, so we collect them here.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (e.g. `pnpm test hub/` or `pnpm test e2e`)
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startPostgres } from './postgres-server.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const roots = [
  'shared/test',
  'service-kit/test',
  'hub/test',
  'subscriber/test',
  'test/src',
  'test/e2e',
];
const files = [];
function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === 'dist') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(relative(root, p));
  }
}
for (const r of roots) walk(join(root, r));
const filters = process.argv.slice(2);
const selected = files
  .sort()
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (selected.length === 0) {
  console.error(`no test files match ${filters.join(' ')}`);
  process.exit(1);
}
const concurrency = process.env.RSNOTIFY_TEST_CONCURRENCY ?? '2';
const args = [
  '--conditions=@rsnotify/source',
  '--import',
  'tsx',
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-timeout=420000',
  // No --test-force-exit: with more than one file at a time it lets a file's process exit before
  // its last verdicts reach this runner, which then counts fewer tests and still passes (a run lost
  // the last 11 tests of shared/test/xml-common-subset.test.ts that way, node#64833). Without it a
  // file that leaves a handle open keeps the run waiting: each file must close what it opens.
  ...selected,
];
// One throw-away PostgreSQL server for every test file of this run that needs one (they call
// testPostgres() from scripts/postgres-server.mjs and create their own databases on it).
const env = { ...process.env };
let pg;
if (
  !env.RSNOTIFY_TEST_PG_URL &&
  selected.some((f) => readFileSync(join(root, f), 'utf8').includes('testPostgres('))
) {
  pg = await startPostgres();
  if ('error' in pg) {
    if (process.env.CI) {
      console.error(`PostgreSQL could not be started for the tests: ${pg.error}`);
      process.exit(1);
    }
    console.error(`NOTE: PostgreSQL tests are SKIPPED: ${pg.error}`);
    env.RSNOTIFY_TEST_PG_SKIP = `PostgreSQL could not be started: ${pg.error}`;
    pg = undefined;
  } else {
    env.RSNOTIFY_TEST_PG_URL = pg.adminUrl;
    console.error(`PostgreSQL for the tests: 127.0.0.1:${pg.port} (temporary, stopped at the end)`);
  }
}
const stopPg = () => {
  pg?.stop();
  pg = undefined;
};
process.on('SIGINT', () => {
  stopPg();
  process.exit(130);
});
process.on('SIGTERM', () => {
  stopPg();
  process.exit(143);
});
const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env });
child.on('exit', (code, signal) => {
  stopPg();
  process.exit(signal ? 1 : (code ?? 1));
});
