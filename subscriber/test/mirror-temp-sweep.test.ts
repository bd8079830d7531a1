// The start-up sweep of the atomic writer's leftover temporaries (a process killed between creating
// a `%%tmp-` file and renaming it leaves one behind). The decision is a pure function, table-tested;
// then the real daemon, against a fake Source speaking real HTTP on 127.0.0.1, starts over a mirror
// holding temporaries (at the root, in the host directory, nested), other files, a directory with a
// temporary name, and symbolic links named and placed to lure the sweep outside the mirror.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logLines, resourceSyncXml } from '@rsnotify/service-kit/testing';
import { isLeftoverTemp, TEMP_FILE_PREFIX, uriToMirrorPath } from '../src/mirror/index.js';
import { createLogger } from '../src/observability/index.js';
import { startSubscriber } from '../src/service.js';
import { resourceList, sleep, startFakeSource, tempDir, waitFor } from './mirror-helpers.js';

test('isLeftoverTemp: a regular file with a temporary name, changed no later than the start', () => {
  const start = 1_000_000;
  const cases: [string, { name: string; isFile: boolean; changedAtMs: number }, boolean][] = [
    [
      'a writer temporary from before',
      { name: '%%tmp-1a2b3c-0', isFile: true, changedAtMs: 5 },
      true,
    ],
    ['an aside of fileToDirectory', { name: '%%tmp-00ff', isFile: true, changedAtMs: 5 }, true],
    [
      'the start millisecond itself',
      { name: '%%tmp-x', isFile: true, changedAtMs: start + 0.9 },
      true,
    ],
    ['changed after the start', { name: '%%tmp-x', isFile: true, changedAtMs: start + 1 }, false],
    ['a mirrored file', { name: 'a.txt', isFile: true, changedAtMs: 5 }, false],
    ['%%tmp- inside a name', { name: 'a%%tmp-x', isFile: true, changedAtMs: 5 }, false],
    ['%%index', { name: '%%index', isFile: true, changedAtMs: 5 }, false],
    ['%%self', { name: '%%self', isFile: true, changedAtMs: 5 }, false],
    ['a link or directory so named', { name: '%%tmp-x', isFile: false, changedAtMs: 5 }, false],
    ['no prefix case-folded', { name: '%%TMP-x', isFile: true, changedAtMs: 5 }, false],
  ];
  for (const [what, entry, expected] of cases)
    assert.equal(isLeftoverTemp(entry, start), expected, what);
});

test('the daemon removes exactly the leftover temporaries under mirrorDir before its baseline', async (t) => {
  const src = await startFakeSource();
  const tmp = await tempDir('rsn-temp-sweep-');
  t.after(async () => {
    await src.close();
    await tmp.remove();
  });
  const base = src.baseUrl;
  src.serve(
    '/.well-known/resourcesync',
    resourceSyncXml({
      capability: 'description',
      entries: [{ loc: `${base}/capabilitylist.xml`, capability: 'capabilitylist' }],
    }),
  );
  src.serve(
    '/capabilitylist.xml',
    resourceSyncXml({
      capability: 'capabilitylist',
      links: [{ rel: 'up', href: `${base}/.well-known/resourcesync` }],
      entries: [{ loc: `${base}/resourcelist.xml`, capability: 'resourcelist' }],
    }),
  );
  src.serve(
    '/resourcelist.xml',
    resourceList(base, '2026-01-01T00:00:00Z', [{ path: '/r/a.txt', body: 'A' }]),
  );
  src.serve('/r/a.txt', 'A');

  const mirrorDir = join(tmp.dir, 'mirror');
  const host = join(mirrorDir, `127.0.0.1%3A${new URL(base).port}`);
  const outside = join(tmp.dir, 'outside');
  await mkdir(join(host, 'deep', 'er'), { recursive: true });
  await mkdir(join(host, `${TEMP_FILE_PREFIX}dir`));
  await mkdir(outside);
  const temporaries = [
    join(mirrorDir, `${TEMP_FILE_PREFIX}probe-1`),
    join(host, `${TEMP_FILE_PREFIX}1a2b3c4d5e6f-0`),
    join(host, 'deep', 'er', `${TEMP_FILE_PREFIX}1a2b3c4d5e6f-1`),
    join(host, `${TEMP_FILE_PREFIX}dir`, `${TEMP_FILE_PREFIX}00ff00ff00ff00ff`),
  ];
  const kept = [
    join(host, 'keep.txt'),
    join(host, 'deep', 'keep%%tmp-not-a-prefix'),
    join(host, `${TEMP_FILE_PREFIX}dir`, 'inner.txt'),
    join(outside, 'target.txt'),
    join(outside, `${TEMP_FILE_PREFIX}beyond-a-link`),
  ];
  for (const f of [...temporaries, ...kept]) await writeFile(f, `bytes of ${f}`);
  // A link with a temporary name to a file outside, and a link to a directory outside holding one.
  const fileLink = join(host, `${TEMP_FILE_PREFIX}x`);
  const dirLink = join(host, 'linked-dir');
  await symlink(join(outside, 'target.txt'), fileLink);
  await symlink(outside, dirLink);
  // Everything above was changed before the daemon starts (ctime has millisecond resolution here).
  await sleep(5);

  const log = logLines();
  const sub = await startSubscriber(
    {
      listen: { host: '127.0.0.1', port: 0 },
      dataDir: join(tmp.dir, 'data'),
      allowPrivateNetworks: true,
      logLevel: 'info',
      sources: [{ name: 's', url: `${base}/.well-known/resourcesync`, mirrorDir }],
    },
    { logger: createLogger('info', log.sink) },
  );
  t.after(() => sub.close());
  const index = (event: string): number => log.events.findIndex((e) => e.event === event);
  await waitFor(() => index('baseline.completed') >= 0, 30_000, 'the baseline completed');

  for (const f of temporaries) assert.equal(existsSync(f), false, `${f} removed`);
  for (const f of kept) assert.equal(readFileSync(f, 'utf8'), `bytes of ${f}`, `${f} untouched`);
  assert.ok(lstatSync(fileLink).isSymbolicLink(), 'a link with a temporary name is not removed');
  assert.ok(lstatSync(dirLink).isSymbolicLink());
  assert.equal(
    readFileSync(uriToMirrorPath(mirrorDir, `${base}/r/a.txt`), 'utf8'),
    'A',
    'the baseline wrote its file',
  );

  const swept = log.of('mirror.temp_swept');
  assert.equal(swept.length, 1, 'one line for the mirror');
  assert.deepEqual(
    { source: swept[0]!.source, mirrorDir: swept[0]!.mirrorDir, removed: swept[0]!.removed },
    { source: 's', mirrorDir, removed: temporaries.length },
  );
  assert.equal(swept[0]!.failed, 0);
  assert.ok(index('mirror.temp_swept') < index('baseline.started'), 'swept before the baseline');
  // Paths are not logged one by one.
  assert.ok(!JSON.stringify(log.events).includes('1a2b3c4d5e6f'));
});
