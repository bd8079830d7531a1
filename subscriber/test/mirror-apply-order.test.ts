// The mirror applier's ordering and concurrency: per-URI order (a later change waits for the earlier
// one, or supersedes it in a batch), parallel across URIs bounded per host, and atomic writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Change } from '@rsnotify/shared';
import { isTempFileName, uriToMirrorPath } from '../src/mirror/index.js';
import { change, setup } from './mirror-apply-rig.js';
import { sleep, waitFor } from './mirror-helpers.js';

test('per-URI order: a later change to the same URI waits for the earlier one, even when the earlier is slow', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/ordered`;
  // Responses are served in arrival order: the first request slowly gets v1, the next at once v2.
  s.src.route('/ordered', async (_req, res, hit) => {
    if (hit === 1) {
      await sleep(300);
      res.writeHead(200).end('v1');
    } else res.writeHead(200).end('v2');
  });
  const c1 = change(uri, 'updated', 'v1');
  const c2 = change(uri, 'updated', 'v2');
  const [r1, r2] = await Promise.all([s.mirror.apply([c1]), s.mirror.apply([c2])]);
  assert.equal(r1![0]!.outcome, 'written');
  assert.equal(r2![0]!.outcome, 'written');
  assert.equal(
    await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'),
    'v2',
    'the later change wins',
  );
  assert.equal(s.state.rows.get(uri)!.lastChangeKey, c2.time!.key);
});

test('per-URI order: within one batch an earlier change is superseded by a later one queued behind it', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/batch`;
  s.src.serve('/batch', 'final');
  const results = await s.mirror.apply([
    change(uri, 'created', 'first'),
    change(uri, 'updated', 'second'),
    change(uri, 'updated', 'final'),
  ]);
  // The first was already fetching when the others were queued: it sees today's bytes ('final'), a
  // mismatch with its own hash, and since a later change waits it is skipped as stale, not failed.
  // The middle one is never fetched.
  assert.deepEqual(
    results.map((r) => r.outcome),
    ['skipped', 'skipped', 'written'],
  );
  assert.deepEqual(
    results.map((r) => r.skipped),
    ['superseded', 'superseded', undefined],
  );
  assert.equal(await readFile(uriToMirrorPath(s.mirrorDir, uri), 'utf8'), 'final');
  assert.equal(s.src.hits('/batch'), 2);
});

test('a stale change with no later change queued is still reported failed (never silently dropped)', async (t) => {
  const s = await setup(t, { maxAttempts: 2 });
  const uri = `${s.src.baseUrl}/stale`;
  s.src.serve('/stale', 'newer bytes');
  const [r] = await s.mirror.apply([change(uri, 'updated', 'older')]);
  assert.equal(r!.outcome, 'failed');
  assert.equal(r!.error?.code, 'RSN_LENGTH_MISMATCH');
});

test('parallel across URIs, bounded per host', async (t) => {
  const s = await setup(t, { perHostConcurrency: 4 });
  const changes: Change[] = [];
  for (let i = 0; i < 24; i++) {
    s.src.route(`/p/${i}`, async (_req, res) => {
      await sleep(40);
      res.writeHead(200).end(`body ${i}`);
    });
    changes.push(change(`${s.src.baseUrl}/p/${i}`, 'created', `body ${i}`));
  }
  const results = await s.mirror.apply(changes);
  assert.ok(results.every((r) => r.outcome === 'written'));
  assert.ok(s.src.maxInFlight > 1, `ran in parallel (max in flight ${s.src.maxInFlight})`);
  assert.ok(s.src.maxInFlight <= 4, `per-host limit kept (max in flight ${s.src.maxInFlight})`);
});

test('atomic write: while a new version streams in, readers see the old file whole, never a partial one', async (t) => {
  const s = await setup(t);
  const uri = `${s.src.baseUrl}/big`;
  const v1 = 'A'.repeat(100_000);
  const v2 = 'B'.repeat(600_000);
  s.src.serve('/big', v1);
  await s.mirror.apply([change(uri, 'created', v1)]);
  const path = uriToMirrorPath(s.mirrorDir, uri);
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  s.src.route('/big', async (_req, res) => {
    res.writeHead(200, { 'content-length': String(v2.length) });
    res.write(v2.slice(0, 400_000)); // more than the writer's buffer: part of it reaches the temp file
    await gate;
    res.end(v2.slice(400_000));
  });
  const pending = s.mirror.apply([change(uri, 'updated', v2)]);
  // Wait until the temp file exists (the write is under way), then look at the target.
  await waitFor(
    async () => (await readdir(join(path, '..'))).some(isTempFileName),
    10_000,
    'temp file',
  );
  assert.equal(await readFile(path, 'utf8'), v1, 'the target still holds the complete old version');
  release();
  assert.equal((await pending)[0]!.outcome, 'written');
  assert.equal((await stat(path)).size, v2.length);
  assert.equal(await readFile(path, 'utf8'), v2);
  assert.equal((await readdir(join(path, '..'))).filter(isTempFileName).length, 0);
});

test('a batch of many changes that need no I/O lets the event loop turn while it applies', async (t) => {
  const s = await setup(t);
  // Deletes of files the mirror never had: each runs to its end without waiting on I/O.
  const changes = Array.from({ length: 2_000 }, (_, i) =>
    change(`${s.src.baseUrl}/never-had/${i}`, 'deleted'),
  );
  let appliedWhenTheLoopTurned: number | undefined;
  let applied = 0;
  const applying = s.mirror.apply(changes).then((results) => {
    applied = results.length;
    return results;
  });
  setImmediate(() => {
    appliedWhenTheLoopTurned = applied;
  });
  const results = await applying;
  assert.equal(results.length, changes.length);
  assert.ok(
    results.every((r) => r.outcome === 'deleted' || r.outcome === 'skipped'),
    'every delete is answered',
  );
  assert.equal(
    appliedWhenTheLoopTurned,
    0,
    'an immediate queued when the batch began ran before the batch ended',
  );
});
