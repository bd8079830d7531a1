// The config loader both daemons use: precedence flag > environment > file > default, one duration
// syntax, file keys equal to flag names with deprecated keys still read, and one error shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, givenFlags, loadConfig, type ConfigOption } from '../src/index.js';
import { tempDir } from '../src/testing/index.js';

const OPTIONS: readonly ConfigOption[] = [
  { flag: 'db', kind: 'string', env: 'T_DB', default: './data.db', deprecatedKeys: ['dbFile'] },
  { flag: 'lease-min', kind: 'int', env: 'T_LEASE_MIN', deprecatedKeys: ['leaseMinSeconds'] },
  {
    flag: 'retry-initial',
    kind: 'duration',
    env: 'T_RETRY',
    deprecatedKeys: ['retry.initialDelayMs'],
  },
  { flag: 'open', kind: 'bool', env: 'T_OPEN', default: false },
];

const cases: {
  name: string;
  flags?: Record<string, unknown>;
  env?: Record<string, string>;
  file?: Record<string, unknown>;
  key: string;
  value: unknown;
  origin: string | undefined;
}[] = [
  { name: 'default only', key: 'db', value: './data.db', origin: 'default' },
  { name: 'file over default', file: { db: 'f.db' }, key: 'db', value: 'f.db', origin: 'file' },
  {
    name: 'environment over file',
    env: { T_DB: 'e.db' },
    file: { db: 'f.db' },
    key: 'db',
    value: 'e.db',
    origin: 'env',
  },
  {
    name: 'flag over environment and file',
    flags: { db: 'x.db' },
    env: { T_DB: 'e.db' },
    file: { db: 'f.db' },
    key: 'db',
    value: 'x.db',
    origin: 'flag',
  },
  {
    name: 'duration from a file string',
    file: { retryInitial: '5s' },
    key: 'retryInitial',
    value: 5000,
    origin: 'file',
  },
  {
    name: 'duration from a file number (ms)',
    file: { retryInitial: 250 },
    key: 'retryInitial',
    value: 250,
    origin: 'file',
  },
  {
    name: 'duration from the environment',
    env: { T_RETRY: '2m' },
    key: 'retryInitial',
    value: 120_000,
    origin: 'env',
  },
  {
    name: 'duration from a flag, bare ms',
    flags: { retryInitial: '750' },
    key: 'retryInitial',
    value: 750,
    origin: 'flag',
  },
  {
    name: 'int from the environment',
    env: { T_LEASE_MIN: '300' },
    key: 'leaseMin',
    value: 300,
    origin: 'env',
  },
  {
    name: 'bool from the environment',
    env: { T_OPEN: 'yes' },
    key: 'open',
    value: true,
    origin: 'env',
  },
  {
    name: 'bool false from a flag beats env true',
    flags: { open: false },
    env: { T_OPEN: '1' },
    key: 'open',
    value: false,
    origin: 'flag',
  },
  { name: 'no value and no default', key: 'leaseMin', value: undefined, origin: undefined },
];

for (const c of cases) {
  test(`config precedence: ${c.name}`, () => {
    const loaded = loadConfig(OPTIONS, {
      flags: c.flags,
      env: c.env,
      fileData: c.file ?? {},
      file: 'test.yaml',
      warn: () => assert.fail('no deprecation expected'),
    });
    assert.deepEqual(loaded.values[c.key], c.value);
    assert.equal(loaded.origins[c.key], c.origin);
  });
}

test('config: a deprecated file key is read with one warning line; the new key wins over it', () => {
  const warnings: string[] = [];
  const loaded = loadConfig(OPTIONS, {
    file: 'hub.yaml',
    fileData: {
      dbFile: 'old.db',
      retry: { initialDelayMs: 100 },
      leaseMinSeconds: 60,
      leaseMin: 90,
    },
    warn: (l) => warnings.push(l),
  });
  assert.equal(loaded.values.db, 'old.db');
  assert.equal(loaded.values.retryInitial, 100);
  assert.equal(loaded.values.leaseMin, 90);
  assert.deepEqual(warnings, [
    'hub.yaml: the key "dbFile" is deprecated; use "db"',
    'hub.yaml: the key "leaseMinSeconds" is deprecated; use "leaseMin" (both given: "leaseMin" wins)',
    'hub.yaml: the key "retry.initialDelayMs" is deprecated; use "retryInitial"',
  ]);
  assert.deepEqual(loaded.rest, {}, 'deprecated keys (and the emptied retry section) are consumed');
});

test('config: file keys that are not options are handed back for the package to validate', () => {
  const loaded = loadConfig(OPTIONS, { fileData: { db: 'a.db', sources: [{ name: 'x' }] } });
  assert.deepEqual(loaded.rest, { sources: [{ name: 'x' }] });
});

const errors: {
  name: string;
  input: Parameters<typeof loadConfig>[1];
  key: string;
  from: string;
  message: RegExp;
}[] = [
  {
    name: 'bad int in the environment',
    input: { env: { T_LEASE_MIN: 'abc' } },
    key: 'leaseMin',
    from: 'env',
    message: /^T_LEASE_MIN: invalid leaseMin: must be a non-negative integer, not "abc"$/,
  },
  {
    name: 'bad duration on a flag',
    input: { flags: { retryInitial: '5 parsecs' } },
    key: 'retryInitial',
    from: 'flag',
    message: /^--retry-initial: invalid retryInitial: must be a duration/,
  },
  {
    name: 'bad duration in the file',
    input: { file: 'c.yaml', fileData: { retryInitial: true } },
    key: 'retryInitial',
    from: 'file',
    message: /^c\.yaml: invalid retryInitial: must be a duration/,
  },
  {
    name: 'bad bool in the environment',
    input: { env: { T_OPEN: 'maybe' } },
    key: 'open',
    from: 'env',
    message: /T_OPEN: invalid open: must be true or false/,
  },
  {
    name: 'empty string in the file',
    input: { fileData: { db: '' } },
    key: 'db',
    from: 'file',
    message: /invalid db: must be a non-empty string/,
  },
  {
    name: 'negative int in the file',
    input: { fileData: { leaseMin: -1 } },
    key: 'leaseMin',
    from: 'file',
    message: /invalid leaseMin: must be a non-negative integer/,
  },
];

for (const c of errors) {
  test(`config error: ${c.name} -> RSN_CONFIG_INVALID naming key and origin`, () => {
    assert.throws(
      () => loadConfig(OPTIONS, c.input),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.code === 'RSN_CONFIG_INVALID' &&
        err.details?.key === c.key &&
        err.details.from === c.from &&
        c.message.test(err.message),
    );
  });
}

test('config files: YAML and JSON read; unreadable, invalid and non-object files refused', async (t) => {
  const tmp = await tempDir();
  t.after(() => tmp.remove());
  const yaml = join(tmp.dir, 'c.yaml');
  writeFileSync(yaml, 'db: y.db\nretryInitial: 5s\n');
  const json = join(tmp.dir, 'c.json');
  writeFileSync(json, '{"db": "j.db", "open": true}');
  assert.deepEqual(loadConfig(OPTIONS, { file: yaml }).values, {
    db: 'y.db',
    retryInitial: 5000,
    open: false,
  });
  assert.equal(loadConfig(OPTIONS, { file: json }).values.open, true);
  const bad = join(tmp.dir, 'bad.yaml');
  writeFileSync(bad, 'db: [unclosed\n');
  const list = join(tmp.dir, 'list.yaml');
  writeFileSync(list, '- a\n- b\n');
  for (const [file, message] of [
    [join(tmp.dir, 'missing.yaml'), /cannot read config file/],
    [bad, /is not valid YAML\/JSON/],
    [list, /must hold an object of keys/],
  ] as const)
    assert.throws(
      () => loadConfig(OPTIONS, { file }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.code === 'RSN_CONFIG_INVALID' &&
        message.test(err.message),
    );
});

test('config: only the flags given on the command line count as flags, not the parser defaults', () => {
  // As commander reports them: `open` defaulted by the parser, `db` and `leaseMin` typed.
  const values = { db: 'given.db', leaseMin: '60', open: false, config: 'x.yaml' };
  const sources: Record<string, string> = { db: 'cli', leaseMin: 'cli', open: 'default' };
  const flags = givenFlags(OPTIONS, values, (key) => sources[key]);
  assert.deepEqual(flags, { db: 'given.db', leaseMin: '60' });
  const loaded = loadConfig(OPTIONS, { flags, env: { T_OPEN: 'true' } });
  assert.equal(loaded.values.open, true, "the parser's default does not hide the environment");
});
