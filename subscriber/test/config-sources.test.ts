// The subscriber's options through the shared loader: flag > RSNOTIFY_SUBSCRIBER_* > file > default,
// the shared duration syntax, and ConfigError (RSN_CONFIG_INVALID) naming key and origin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '@rsnotify/service-kit';
import { tempDir } from '@rsnotify/service-kit/testing';
import { loadConfigFile } from '../src/config.js';

async function configFile(t: { after(fn: () => Promise<void>): void }, text: string) {
  const tmp = await tempDir();
  t.after(() => tmp.remove());
  const file = join(tmp.dir, 'subscriber.yaml');
  await writeFile(file, text);
  return { file, dir: tmp.dir };
}

const FILE =
  'dataDir: state\nlogLevel: warn\nverificationTimeout: 30s\nmaxNotificationBytes: 1000\n';

const rows: {
  name: string;
  flags?: Record<string, unknown>;
  env?: Record<string, string>;
  expect: (dir: string) => Record<string, unknown>;
}[] = [
  {
    name: 'file over defaults; a relative dataDir from the file is relative to the file',
    expect: (dir) => ({
      dataDir: join(dir, 'state'),
      logLevel: 'warn',
      verificationTimeout: 30_000,
      allowPrivateNetworks: false,
    }),
  },
  {
    name: 'environment over file; its relative dataDir is relative to the working directory',
    env: {
      RSNOTIFY_SUBSCRIBER_LOG_LEVEL: 'debug',
      RSNOTIFY_SUBSCRIBER_DATA_DIR: 'elsewhere',
      RSNOTIFY_SUBSCRIBER_VERIFICATION_TIMEOUT: '2m',
      RSNOTIFY_SUBSCRIBER_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    expect: () => ({
      logLevel: 'debug',
      dataDir: resolve('elsewhere'),
      verificationTimeout: 120_000,
      allowPrivateNetworks: true,
    }),
  },
  {
    name: 'flag over environment',
    flags: { logLevel: 'error', maxNotificationBytes: '2048' },
    env: {
      RSNOTIFY_SUBSCRIBER_LOG_LEVEL: 'debug',
      RSNOTIFY_SUBSCRIBER_MAX_NOTIFICATION_BYTES: '5',
    },
    expect: () => ({ logLevel: 'error', maxNotificationBytes: 2048 }),
  },
];

for (const row of rows) {
  test(`subscriber config: ${row.name}`, async (t) => {
    const { file, dir } = await configFile(t, FILE);
    const cfg = await loadConfigFile(file, { flags: row.flags, env: row.env ?? {} });
    for (const [key, value] of Object.entries(row.expect(dir)))
      assert.deepEqual(cfg[key as keyof typeof cfg], value, key);
  });
}

test('subscriber config: a bad value from the environment or the file is one ConfigError', async (t) => {
  const { file } = await configFile(t, FILE);
  await assert.rejects(
    loadConfigFile(file, { env: { RSNOTIFY_SUBSCRIBER_VERIFICATION_TIMEOUT: 'soon' } }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.code === 'RSN_CONFIG_INVALID' &&
      err.details?.key === 'verificationTimeout' &&
      err.details.from === 'env',
  );
  const { file: bad } = await configFile(t, 'dataDir: x\nlogLevel: loud\n');
  await assert.rejects(
    loadConfigFile(bad, { env: {} }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.code === 'RSN_CONFIG_INVALID' &&
      /logLevel/.test(err.message),
  );
});
