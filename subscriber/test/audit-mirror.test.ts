// Audit over real HTTP: a mirror made by the baseline is in sync; missing, extra and different files
// are each reported (`audit NAME`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { auditMirror, describeAudit } from '../src/audit/index.js';
import { runBaseline } from '../src/baseline/index.js';
import {
  createHttpGetter,
  createMirror,
  uriToMirrorPath,
  TEMP_FILE_PREFIX,
} from '../src/mirror/index.js';
import { memoryStateStore, resourceList, startFakeSource, tempDir } from './mirror-helpers.js';

const xml = { 'content-type': 'application/xml' };

test('audit: in sync after a baseline; then missing, extra and different are reported', async (t) => {
  const src = await startFakeSource();
  const tmp = await tempDir();
  const http = createHttpGetter({ allowPrivateNetworks: true });
  const mirror = createMirror({ mirrorDir: tmp.dir, http, state: memoryStateStore() });
  t.after(async () => {
    await mirror.close();
    await http.close();
    await src.close();
    await tmp.remove();
  });

  const items = Array.from({ length: 40 }, (_, i) => ({ path: `/r/${i}`, body: `body ${i}` }));
  items.push({ path: '/odd name?x=1&y=2', body: 'query' });
  for (const i of items) src.serve(i.path.replace(' ', '%20'), i.body);
  src.serve(
    '/rl.xml',
    resourceList(
      src.baseUrl,
      '2026-02-01T00:00:00Z',
      items.map((i) => ({ ...i, path: i.path.replace(' ', '%20') })),
    ),
    xml,
  );
  const base = await runBaseline(`${src.baseUrl}/rl.xml`, http, mirror);
  assert.deepEqual(base.failed, []);

  const clean = await auditMirror(`${src.baseUrl}/rl.xml`, tmp.dir, http);
  assert.equal(clean.inSync, true, describeAudit(clean));
  assert.equal(clean.checked, items.length);

  // A temp file of an unfinished write is not "extra".
  const p0 = uriToMirrorPath(tmp.dir, `${src.baseUrl}/r/0`);
  await writeFile(join(dirname(p0), `${TEMP_FILE_PREFIX}deadbeef`), 'partial');
  assert.equal((await auditMirror(`${src.baseUrl}/rl.xml`, tmp.dir, http)).inSync, true);

  await rm(uriToMirrorPath(tmp.dir, `${src.baseUrl}/r/1`));
  await appendFile(uriToMirrorPath(tmp.dir, `${src.baseUrl}/r/2`), '!'); // other length
  await writeFile(uriToMirrorPath(tmp.dir, `${src.baseUrl}/r/3`), 'body X'); // same length, other bytes
  await mkdir(join(dirname(p0), 'sub'), { recursive: true });
  await writeFile(join(dirname(p0), 'sub', 'stray'), 'not listed');

  const r = await auditMirror(`${src.baseUrl}/rl.xml`, tmp.dir, http);
  assert.equal(r.inSync, false);
  assert.deepEqual(r.missing, [`${src.baseUrl}/r/1`]);
  assert.deepEqual(r.different.map((x) => x.uri).sort(), [
    `${src.baseUrl}/r/2`,
    `${src.baseUrl}/r/3`,
  ]);
  assert.ok(r.different.find((x) => x.uri.endsWith('/r/2'))!.expected.startsWith('length:'));
  assert.ok(
    r.different.find((x) => x.uri.endsWith('/r/3'))!.expected.startsWith('md5:') ||
      r.different.find((x) => x.uri.endsWith('/r/3'))!.expected.startsWith('sha-256:'),
  );
  assert.equal(r.extra.length, 1);
  assert.ok(r.extra[0]!.endsWith(join('sub', 'stray')));
  assert.match(describeAudit(r), /1 missing, 1 extra, 2 different/);
});
