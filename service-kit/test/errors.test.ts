// Every error code of @rsnotify/service-kit, pinned, and no unlisted RSN_ literal in its sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RsnotifyError } from '@rsnotify/shared';
import {
  ConfigError,
  SERVICE_KIT_ERRORS,
  WaitTimeoutError,
  type BodyRefusalCode,
} from '@rsnotify/service-kit';
import { waitFor } from '@rsnotify/service-kit/testing';

test('the service-kit catalog lists exactly the pinned codes; waitFor times out with RSN_WAIT_TIMEOUT', async () => {
  assert.deepEqual(Object.keys(SERVICE_KIT_ERRORS).sort(), [
    'RSN_BODY_BUDGET_EXHAUSTED',
    'RSN_BODY_TOO_LARGE',
    'RSN_BODY_UNREADABLE',
    'RSN_CONFIG_INVALID',
    'RSN_WAIT_TIMEOUT',
  ]);
  const config = new ConfigError('m', { key: 'db', from: 'env' });
  assert.equal(config.code, 'RSN_CONFIG_INVALID');
  assert.equal(config.name, SERVICE_KIT_ERRORS.RSN_CONFIG_INVALID.class);
  for (const entry of Object.values(SERVICE_KIT_ERRORS)) assert.ok(entry.meaning.length > 0);
  await assert.rejects(
    waitFor(() => false, { timeoutMs: 50, intervalMs: 5, what: 'never' }),
    (err: unknown) =>
      err instanceof WaitTimeoutError &&
      err instanceof RsnotifyError &&
      err.code === 'RSN_WAIT_TIMEOUT' &&
      err.name === SERVICE_KIT_ERRORS.RSN_WAIT_TIMEOUT.class &&
      /never/.test(err.message),
  );
});

test('waitFor: on timeout, describe() puts the state the probe refused into the error, or says it failed', async () => {
  let reads = 0;
  await assert.rejects(
    waitFor(() => false, {
      timeoutMs: 30,
      intervalMs: 5,
      what: 'synced',
      describe: async () => ({ syncedUntil: '2026-12-06T04:00:00Z', reads: ++reads }),
    }),
    (err: unknown) =>
      err instanceof WaitTimeoutError &&
      err.message.includes('waiting for synced') &&
      err.message.includes('state: {"syncedUntil":"2026-12-06T04:00:00Z","reads":1}'),
  );
  assert.equal(reads, 1, 'described once, at the timeout');
  await assert.rejects(
    waitFor(() => false, {
      timeoutMs: 10,
      intervalMs: 5,
      describe: () => {
        throw new Error('status port closed');
      },
    }),
    (err: unknown) =>
      err instanceof WaitTimeoutError &&
      err.message.includes('state unknown (describe failed: status port closed)'),
  );
  let described = false;
  await waitFor(() => true, { describe: () => (described = true) });
  assert.equal(described, false, 'not called when the probe is satisfied');
});

test('the body-limit refusal codes are results (outcome), answered by the HTTP layer, not thrown', () => {
  const outcomes: readonly BodyRefusalCode[] = [
    'RSN_BODY_TOO_LARGE',
    'RSN_BODY_UNREADABLE',
    'RSN_BODY_BUDGET_EXHAUSTED',
  ];
  for (const code of outcomes) assert.equal(SERVICE_KIT_ERRORS[code].class, 'outcome', code);
});

test('no RSN_ code literal in service-kit/src is missing from the catalog', async () => {
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  const unknown: string[] = [];
  async function scan(dir: string): Promise<void> {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      if ((await stat(p)).isDirectory()) await scan(p);
      else if (name.endsWith('.ts')) {
        for (const m of (await readFile(p, 'utf8')).matchAll(/'(RSN?_[A-Z0-9_]+)'/g)) {
          if (!(m[1]! in SERVICE_KIT_ERRORS)) unknown.push(`${p}: ${m[1]}`);
        }
      }
    }
  }
  await scan(src);
  assert.deepEqual(unknown, []);
});
