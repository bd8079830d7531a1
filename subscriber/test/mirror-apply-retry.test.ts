// The mirror applier's retries against a fake Source on 127.0.0.1: 5xx, 429 with Retry-After,
// connection resets, what is never retried (404, the SSRF guard), and giving up after maxAttempts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createHttpGetter, createMirror, uriToMirrorPath } from '../src/mirror/index.js';
import { change, listAll, setup } from './mirror-apply-rig.js';
import { memoryStateStore, startFakeSource, tempDir } from './mirror-helpers.js';

test('retry: a 5xx then success is written', async (t) => {
  const s = await setup(t);
  s.src.route('/flaky', (_req, res, hit) => {
    if (hit < 3) res.writeHead(hit === 1 ? 500 : 503).end('down');
    else res.writeHead(200).end('ok now');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/flaky`, 'updated', 'ok now')]);
  assert.equal(r!.outcome, 'written');
  assert.equal(s.src.hits('/flaky'), 3);
});

test('retry: 429 with Retry-After is waited for, then retried', async (t) => {
  const s = await setup(t);
  s.src.route('/busy', (_req, res, hit) => {
    if (hit === 1) res.writeHead(429, { 'retry-after': '1' }).end();
    else res.writeHead(200).end('served');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/busy`, 'created', 'served')]);
  assert.equal(r!.outcome, 'written');
  assert.equal(s.src.hits('/busy'), 2);
  // The second request came after the server's Retry-After (a lower bound, not a timing benchmark).
  assert.ok(s.src.log[1]!.at - s.src.log[0]!.at >= 900);
});

test('retry: a network error (connection reset) then success is written', async (t) => {
  const s = await setup(t);
  s.src.route('/reset', (req, res, hit) => {
    if (hit === 1) req.socket.destroy();
    else res.writeHead(200).end('fine');
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/reset`, 'created', 'fine')]);
  assert.equal(r!.outcome, 'written');
});

test('a 404 on a created resource fails with RSN_HTTP_STATUS at once (not retried)', async (t) => {
  const s = await setup(t);
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/missing`, 'created', 'x')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_HTTP_STATUS');
  assert.equal(r!.error?.status, 404);
  assert.equal(s.src.hits('/missing'), 1);
});

test('retry: a 5xx that never ends is reported after maxAttempts', async (t) => {
  const s = await setup(t, { maxAttempts: 3 });
  s.src.route('/down', (_req, res) => {
    res.writeHead(502).end();
  });
  const [r] = await s.mirror.apply([change(`${s.src.baseUrl}/down`, 'created', 'x')]);
  assert.equal(r!.error?.code, 'RSN_HTTP_STATUS');
  assert.equal(r!.error?.status, 502);
  assert.equal(s.src.hits('/down'), 3);
});
test('the SSRF guard applies: without allowPrivateNetworks a loopback Source is refused, not retried', async (t) => {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const http = createHttpGetter({ allowPrivateNetworks: false });
  const mirror = createMirror({
    mirrorDir: tmp.dir,
    http,
    state: memoryStateStore(),
    retryBaseDelayMs: 10,
  });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });
  src.serve('/x', 'x');
  const [r] = await mirror.apply([change(`${src.baseUrl}/x`, 'created', 'x')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_OUTBOUND_PRIVATE_ADDRESS');
  assert.equal(src.hits('/x'), 0);
  await writeFile(join(tmp.dir, 'keep'), ''); // the temp dir is still ours to remove
});

test('a failed GET into a directory the mirror already writes leaves no temporary file behind', async (t) => {
  // The temporary file of a resource in a known directory is created while its GET is in flight:
  // a 404, a connection that keeps breaking, and a body that fails its hash each remove it again.
  const s = await setup(t, { maxAttempts: 2 });
  s.src.serve('/d/first', 'first');
  s.src.route('/d/reset', (req) => {
    req.socket.destroy();
  });
  s.src.serve('/d/tampered', 'tampered!'); // as long as what is announced
  const [first] = await s.mirror.apply([change(`${s.src.baseUrl}/d/first`, 'created', 'first')]);
  assert.equal(first!.outcome, 'written');
  const results = await s.mirror.apply([
    change(`${s.src.baseUrl}/d/missing`, 'created', 'x'),
    change(`${s.src.baseUrl}/d/reset`, 'created', 'y'),
    change(`${s.src.baseUrl}/d/tampered`, 'created', 'announced'),
  ]);
  assert.deepEqual(
    results.map((r) => [r.outcome, r.error?.code]),
    [
      ['failed', 'RSN_HTTP_STATUS'],
      ['failed', 'RSN_FETCH_FAILED'],
      ['failed', 'RSN_HASH_MISMATCH'],
    ],
  );
  assert.equal(s.src.hits('/d/reset'), 2, 'the broken connection was retried, each attempt opened');
  const firstPath = uriToMirrorPath(s.mirrorDir, `${s.src.baseUrl}/d/first`);
  assert.deepEqual(await readdir(dirname(firstPath)), ['first']);
  assert.deepEqual(await listAll(s.mirrorDir), [firstPath]);
});
