// Upgrading a mirror written by the layout-1 mapping (reserved names spelled `%2F...`): files move
// by rename to their current names, the recorded paths follow, and what cannot move is reported.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { migrateMirrorLayout, uriToMirrorPath } from '../src/mirror/index.js';
import { tempDir } from './mirror-helpers.js';

test('layout migration: a layout-1 index file and long name move to the current mapping; missing files are reported', async (t) => {
  const tmp = await tempDir();
  t.after(() => tmp.remove());
  const m = join(tmp.dir, 'mirror');
  const host = join(m, 'example.org');
  await mkdir(join(host, 'dir'), { recursive: true });
  const long = 'x'.repeat(300);
  const legacy = [
    { uri: 'http://example.org/dir/', path: join(host, 'dir', '%2F'), body: 'index' },
    {
      uri: `http://example.org/${long}`,
      path: join(host, `${'x'.repeat(133)}%2F${'0'.repeat(64)}`),
      body: 'long',
    },
    { uri: 'http://example.org/plain.txt', path: join(host, 'plain.txt'), body: 'plain' },
  ];
  for (const l of legacy) await writeFile(l.path, l.body);
  const recorded = new Map<string, string>();
  const rows = [
    ...legacy.map(({ uri, path }) => ({ uri, path })),
    { uri: 'http://example.org/gone/', path: join(host, 'gone', '%2F') },
  ];
  const r = await migrateMirrorLayout(m, rows, async (uri, path) => {
    recorded.set(uri, path);
  });
  assert.equal(r.moved, 2);
  assert.deepEqual(
    r.failed.map((f) => f.uri),
    ['http://example.org/gone/'],
  );
  for (const l of legacy) {
    const now = uriToMirrorPath(m, l.uri);
    assert.equal(await readFile(now, 'utf8'), l.body, l.uri);
    if (now !== l.path) {
      assert.equal(existsSync(l.path), false);
      assert.equal(recorded.get(l.uri), now);
    }
  }
  assert.equal(uriToMirrorPath(m, 'http://example.org/dir/'), join(host, 'dir', '%%index'));
  // A second run has nothing left to do.
  const again = await migrateMirrorLayout(
    m,
    legacy.map((l) => ({ uri: l.uri, path: recorded.get(l.uri) ?? l.path })),
    async () => undefined,
  );
  assert.deepEqual(again, { moved: 0, failed: [] });
});
