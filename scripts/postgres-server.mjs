// A throw-away PostgreSQL server for tests and benchmarks: Debian's binaries (initdb + pg_ctl from
// /usr/lib/postgresql/<version>/bin), a temporary data directory, 127.0.0.1 on a free port,
// password (scram-sha-256) authentication. initdb refuses to run as root, so as root the server runs
// as the unprivileged `postgres` user (created by Debian's package) through runuser, and the temp
// directory is handed to it. Returns undefined with a reason when no server can be started.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export const TEST_PG_USER = 'rsnotify';
export const TEST_PG_PASSWORD = 'rsnotify-test-password';

function findBinDir() {
  const fromEnv = process.env.RSNOTIFY_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const base = '/usr/lib/postgresql';
  let versions = [];
  try {
    versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    /* none */
  }
  for (const v of versions)
    if (existsSync(join(base, v, 'bin', 'initdb'))) return join(base, v, 'bin');
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return join(which.stdout.trim(), '..');
  return undefined;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server; `options.fsync` (default false: tests do not survive power loss, only process
 * crashes, which fsync does not affect) and `options.maxConnections` (default 200).
 * @returns {Promise<{ url: string, adminUrl: string, host: string, port: number, stop: () => void } | { error: string }>}
 */
export async function startPostgres(options = {}) {
  const bin = findBinDir();
  if (!bin)
    return {
      error: "PostgreSQL binaries (initdb, pg_ctl) not found; install Debian's postgresql package",
    };
  const asRoot = process.getuid?.() === 0;
  let runAs = [];
  let owner;
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    if (id.status !== 0)
      return {
        error: 'running as root and there is no unprivileged "postgres" user to run the server',
      };
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    owner = { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) };
    runAs = ['runuser', '-u', 'postgres', '--'];
  }
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-pg-'));
  const data = join(dir, 'data');
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, `${TEST_PG_PASSWORD}\n`, { mode: 0o600 });
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(pwfile, owner.uid, owner.gid);
  }
  chmodSync(dir, 0o700);
  const run = (cmd, args) => {
    const argv = [...runAs, join(bin, cmd), ...args];
    return spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: dir });
  };
  const init = run('initdb', [
    '-D',
    data,
    '-U',
    TEST_PG_USER,
    `--pwfile=${pwfile}`,
    '--auth=scram-sha-256',
    '-E',
    'UTF8',
    '--no-locale',
    '--no-sync',
  ]);
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return {
      error: `initdb failed: ${(init.stderr || init.stdout || '').trim().split('\n').slice(-2).join(' ')}`,
    };
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      `-k ${dir}`,
      `-c max_connections=${options.maxConnections ?? 200}`,
      `-c fsync=${options.fsync ? 'on' : 'off'}`,
      `-c synchronous_commit=${options.fsync ? 'on' : 'off'}`,
      '-c full_page_writes=off',
      '-c shared_buffers=128MB',
    ].join(' ');
    const started = run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      settings,
      '-w',
      '-t',
      '60',
      'start',
    ]);
    if (started.status !== 0) continue; // most likely the port was taken between probe and bind
    const stop = () => {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      rmSync(dir, { recursive: true, force: true });
    };
    // For fault tests: the server goes away (fast shutdown, connections cut) and comes back on the same port.
    const pause = () => {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    };
    const resume = () => {
      const r = run('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-o',
        settings,
        '-w',
        '-t',
        '60',
        'start',
      ]);
      if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr}`);
    };
    const base = `postgres://${TEST_PG_USER}:${encodeURIComponent(TEST_PG_PASSWORD)}@127.0.0.1:${port}`;
    return {
      url: `${base}/postgres`,
      adminUrl: `${base}/postgres`,
      host: '127.0.0.1',
      port,
      dataDir: data,
      stop,
      pause,
      resume,
    };
  }
  rmSync(dir, { recursive: true, force: true });
  return { error: 'pg_ctl start failed three times (see the server log)' };
}

/** Who the server runs as (for messages). */
export function serverUser() {
  return process.getuid?.() === 0 ? 'postgres' : userInfo().username;
}

let dbCounter = 0;

/** A fresh, empty database on the server behind `adminUrl` (createdb over TCP); returns its URL. */
export function createDatabase(adminUrl, prefix = 'rsn') {
  const u = new URL(adminUrl);
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${++dbCounter}`;
  const bin = findBinDir();
  const createdb = bin ? join(bin, 'createdb') : 'createdb';
  const r = spawnSync(
    createdb,
    ['-h', u.hostname, '-p', u.port || '5432', '-U', decodeURIComponent(u.username), name],
    {
      encoding: 'utf8',
      env: { ...process.env, PGPASSWORD: decodeURIComponent(u.password) },
    },
  );
  if (r.status !== 0) throw new Error(`createdb ${name} failed: ${(r.stderr || '').trim()}`);
  u.pathname = `/${name}`;
  return u.href;
}

let perProcess;

/**
 * The PostgreSQL server for this test process: the one the test runner started
 * (RSNOTIFY_TEST_PG_URL), else one started now for this process and stopped at its exit.
 * @returns {Promise<{ adminUrl: string, newDatabase: (prefix?: string) => string } | { skip: string }>}
 */
export async function testPostgres() {
  if (process.env.RSNOTIFY_TEST_PG_SKIP) return { skip: process.env.RSNOTIFY_TEST_PG_SKIP };
  let adminUrl = process.env.RSNOTIFY_TEST_PG_URL;
  if (!adminUrl) {
    perProcess ??= startPostgres().then((pg) => {
      if ('error' in pg) return pg;
      process.once('exit', () => pg.stop());
      return pg;
    });
    const pg = await perProcess;
    if ('error' in pg) return { skip: `PostgreSQL could not be started: ${pg.error}` };
    adminUrl = pg.adminUrl;
  }
  const url = adminUrl;
  return { adminUrl: url, newDatabase: (prefix) => createDatabase(url, prefix) };
}

// `node scripts/postgres-server.mjs`: start one and print its URL until Ctrl-C (manual testing).
if (import.meta.url === `file://${process.argv[1]}`) {
  const pg = await startPostgres();
  if ('error' in pg) {
    console.error(pg.error);
    process.exit(1);
  }
  console.log(pg.url);
  const done = () => {
    pg.stop();
    process.exit(0);
  };
  process.on('SIGINT', done);
  process.on('SIGTERM', done);
  setInterval(() => undefined, 1 << 30);
}
