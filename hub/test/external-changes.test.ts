// Several hub processes on one SQLite file: a subscription deleted through one process's admin API
// (or the console, or the CLI's --db mode: all write the same rows) is noticed by the others within
// about a second through SQLite's data_version, not only at their next start: they stop delivering
// to it, log it, and keep delivering to the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { startHub, type RunningHub } from '@rsnotify/hub';
import { createLogger } from '../src/observability/logger.js';
import { adminApi, adminTokenFor } from './admin-helpers.js';
import {
  linkHeader,
  notificationXml,
  publish,
  receiverFor,
  subscribe,
  tempDir,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/shared/topic';

test('a subscription deleted through another process is no longer delivered to by this one', async (t) => {
  const dir = await tempDir(t);
  const dbFile = join(dir, 'hub.db');
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const base = {
    host: '127.0.0.1',
    port: 0,
    dbFile,
    allowPrivateNetworks: true,
    leaseMinSeconds: 1,
    checkTopics: false,
  };
  const a: RunningHub = await startHub({ ...base, logger: createLogger('info', sink) });
  t.after(() => a.close());
  const r = await receiverFor(t);
  const { token } = await a.addSource('src', ['http://source.test/shared/']);
  await subscribe(a, r, TOPIC, '/keep');
  await subscribe(a, r, TOPIC, '/drop');
  const headers = { authorization: `Bearer ${token}`, link: linkHeader(TOPIC, a.url) };
  assert.equal((await publish(a.url, notificationXml('one'), headers)).status, 200);
  await waitFor(
    () => r.deliveriesTo('/keep').length === 1 && r.deliveriesTo('/drop').length === 1,
    'both delivered by hub A',
  );

  // Hub B on the same file deletes /drop through its admin API.
  const b = await startHub({ ...base, logLevel: 'silent' });
  t.after(() => b.close());
  const api = adminApi(b, await adminTokenFor(dbFile));
  const subs = await api<{ subscriptions: { id: number; callback: string }[] }>(
    'GET',
    '/subscriptions',
  );
  assert.equal(subs.status, 200, subs.text);
  const ids = subs.data.subscriptions.map((s) => s.id);
  assert.equal(ids.length, 2);
  // The callbacks are shown redacted: tell them apart by deleting one and checking which one stays.
  const dropId = await (async () => {
    for (const id of ids) {
      const one = await api<{ callback: string }>('GET', `/subscriptions/${id}`);
      if (one.status === 200 && (await isDrop(one.data.callback))) return id;
    }
    return ids[1]!;
  })();
  assert.equal((await api('DELETE', `/subscriptions/${dropId}`)).status, 204);

  // Hub A notices without a restart.
  await waitFor(
    () => lines.some((l) => l.includes('"subscription.removed_elsewhere"')),
    'hub A logs the subscription deleted elsewhere',
  );
  const removed = lines.find((l) => l.includes('"subscription.removed_elsewhere"'))!;
  assert.equal((JSON.parse(removed) as { subscription: number }).subscription, dropId);
  assert.equal((await publish(a.url, notificationXml('two'), headers)).status, 200);
  // (Hub B, started after the first publish, may deliver that one again: each SQLite process drives
  // the subscriptions it loaded. Only the second notification tells.)
  const tagged = (path: string) =>
    r.deliveriesTo(path).filter((d) => d.body.toString().includes('/res/two/')).length;
  await waitFor(() => tagged('/keep') >= 1, 'the kept one still delivered');
  assert.equal(tagged('/drop'), 0, 'nothing more to the deleted one');
});

/** The subscription views show `origin/[path:hash]`; the hash of '/drop' tells which one it is. */
async function isDrop(shown: string): Promise<boolean> {
  const { redactUrl } = await import('@rsnotify/service-kit');
  return shown.endsWith(new URL(redactUrl('http://x/drop')).pathname);
}
