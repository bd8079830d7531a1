// `rsnotify-hub serve`'s options through the shared loader: flag > RSNOTIFY_HUB_* > file > default,
// file keys equal to the flag names (the former HubOptions keys still read, with a warning),
// durations as "5s", and one ConfigError (RSN_CONFIG_INVALID) for every bad value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '@rsnotify/service-kit';
import { DEFAULT_DB, HUB_CONFIG_OPTIONS, loadHubOptions } from '../src/config-loader.js';
import type { HubOptions } from '../src/config.js';

const rows: {
  name: string;
  flags?: Record<string, unknown>;
  env?: Record<string, string>;
  file?: Record<string, unknown>;
  expect: Partial<HubOptions>;
  warnings?: RegExp[];
}[] = [
  { name: 'defaults: the default database', expect: { dbFile: DEFAULT_DB } },
  { name: 'file key db', file: { db: 'f.db' }, expect: { dbFile: 'f.db' } },
  {
    name: 'former file key dbFile, with a deprecation warning',
    file: { dbFile: 'old.db' },
    expect: { dbFile: 'old.db' },
    warnings: [/the key "dbFile" is deprecated; use "db"/],
  },
  {
    name: 'environment over file',
    env: { RSNOTIFY_HUB_DB: 'env.db', RSNOTIFY_HUB_PORT: '0' },
    file: { db: 'f.db', port: 9000 },
    expect: { dbFile: 'env.db', port: 0 },
  },
  {
    name: 'flag over environment',
    flags: { db: 'flag.db', leaseMin: '60' },
    env: { RSNOTIFY_HUB_DB: 'env.db', RSNOTIFY_HUB_LEASE_MIN: '120' },
    expect: { dbFile: 'flag.db', leaseMinSeconds: 60 },
  },
  {
    name: 'durations as text in the file and the environment',
    file: { retryInitialMs: '5s', requestTimeoutMs: '2s' },
    env: { RSNOTIFY_HUB_RETRY_MAX_AGE_MS: '1h' },
    expect: {
      retry: { initialDelayMs: 5000, maxAgeMs: 3_600_000 },
      requestTimeoutMs: 2000,
    },
  },
  {
    name: 'former nested retry keys and lease keys still read',
    file: { retry: { maxDelayMs: 700 }, leaseMaxSeconds: 600 },
    expect: { retry: { maxDelayMs: 700 }, leaseMaxSeconds: 600 },
    warnings: [
      /"leaseMaxSeconds" is deprecated; use "leaseMax"/,
      /"retry\.maxDelayMs" is deprecated/,
    ],
  },
  {
    name: 'boolean from the environment; --no-check-topics from a flag',
    flags: { checkTopics: false },
    env: { RSNOTIFY_HUB_OPEN_PUBLISHING: 'true' },
    expect: { openPublishing: true, checkTopics: false },
  },
  {
    name: 'connection limit and secret key file from flag, environment and file',
    flags: { maxConnectionsPerClient: '0' },
    env: { RSNOTIFY_HUB_SECRET_KEY_FILE: '/etc/rsnotify/env.key' },
    file: { maxConnectionsPerClient: 16, secretKeyFile: '/etc/rsnotify/file.key' },
    expect: { maxConnectionsPerClient: 0, secretKeyFile: '/etc/rsnotify/env.key' },
  },
  {
    name: 'file-only keys keep their names',
    file: { replayWindowMs: 1000, bridge: { maxEntriesPerNotification: 10 } },
    expect: { replayWindowMs: 1000, bridge: { maxEntriesPerNotification: 10 } },
  },
];

for (const row of rows) {
  test(`hub config: ${row.name}`, () => {
    const warnings: string[] = [];
    const options = loadHubOptions({
      flags: row.flags,
      env: row.env ?? {},
      fileData: row.file ?? {},
      file: 'hub.yaml',
      warn: (l) => warnings.push(l),
    });
    for (const [key, value] of Object.entries(row.expect))
      assert.deepEqual(options[key as keyof HubOptions], value, key);
    assert.equal(warnings.length, row.warnings?.length ?? 0, warnings.join('\n'));
    row.warnings?.forEach((w, i) => assert.match(warnings[i]!, w));
  });
}

const bad: { name: string; input: Parameters<typeof loadHubOptions>[0]; message: RegExp }[] = [
  {
    name: 'a word for an integer (environment)',
    input: { env: { RSNOTIFY_HUB_LEASE_MIN: 'soon' } },
    message: /^RSNOTIFY_HUB_LEASE_MIN: invalid leaseMin/,
  },
  {
    name: 'a bad duration (flag)',
    input: { flags: { retryInitialMs: 'fast' } },
    message: /^--retry-initial-ms: invalid retryInitialMs: must be a duration/,
  },
  {
    name: 'an unknown file key',
    input: { fileData: { bogus: true }, file: 'hub.yaml' },
    message: /invalid options:[\s\S]*bogus/,
  },
  {
    name: 'a log level that does not exist',
    input: { fileData: { logLevel: 'loud' } },
    message: /invalid options:[\s\S]*logLevel/,
  },
  {
    name: 'a value out of range is named by its file key, on one line',
    input: { fileData: { leaseMin: 0 } },
    message: /^invalid options: leaseMin: [^\n]+$/,
  },
];

for (const row of bad) {
  test(`hub config error: ${row.name}`, () => {
    assert.throws(
      () => loadHubOptions({ env: {}, ...row.input }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.code === 'RSN_CONFIG_INVALID' &&
        row.message.test(err.message),
    );
  });
}

test('hub config: every option has an RSNOTIFY_HUB_ variable and a help text', () => {
  for (const o of HUB_CONFIG_OPTIONS) {
    assert.match(o.env ?? '', /^RSNOTIFY_HUB_[A-Z_]+$/, o.flag);
    assert.ok((o.help ?? '').length > 0, o.flag);
  }
});
