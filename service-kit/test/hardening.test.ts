// The shared hardening helpers: callback redaction, the unauthenticated byte budget and database
// file preparation (modes, errno instead of a hang).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteBudget, concatInSlices, prepareDatabaseFile, redactUrl } from '../src/index.js';

test('redactUrl keeps the origin and replaces path and query by a stable 12-hex hash', () => {
  const a = redactUrl('https://mirror.test:8443/callback/SECRET?x=1');
  assert.match(a, /^https:\/\/mirror\.test:8443\/\[path:[0-9a-f]{12}\]$/);
  assert.ok(!a.includes('SECRET'));
  assert.equal(redactUrl('https://mirror.test:8443/callback/SECRET?x=1'), a);
  assert.notEqual(redactUrl('https://mirror.test:8443/callback/OTHER'), a);
  assert.equal(redactUrl('https://mirror.test/'), 'https://mirror.test');
  assert.match(redactUrl('not a url /SECRET'), /^\[redacted:[0-9a-f]{12}\]$/);
});

test('ByteBudget refuses what would exceed its maximum and takes back what is given', () => {
  const b = new ByteBudget(100);
  assert.ok(b.tryTake(60));
  assert.ok(!b.tryTake(41));
  assert.ok(b.tryTake(40));
  b.give(60);
  assert.equal(b.inUse, 40);
});

test('prepareDatabaseFile: new file 0600 in new 0700 directories; an existing file keeps its mode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsn-dbfile-'));
  try {
    const file = join(dir, 'a', 'b', 'x.db');
    assert.deepEqual(prepareDatabaseFile(file), { created: true });
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, 'a')).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, 'a', 'b')).mode & 0o777, 0o700);
    const existing = join(dir, 'old.db');
    writeFileSync(existing, '');
    chmodSync(existing, 0o640);
    assert.deepEqual(prepareDatabaseFile(existing), { created: false });
    assert.equal(statSync(existing).mode & 0o777, 0o640);
    assert.throws(() => prepareDatabaseFile(dir), { code: 'EISDIR' });
    assert.throws(() => prepareDatabaseFile(join(existing, 'x.db')), { code: 'ENOTDIR' });
    assert.throws(() => prepareDatabaseFile('/proc/nope/x.db'), { code: 'ENOENT' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('concatInSlices gives the bytes Buffer.concat gives, for one chunk, small and sliced sizes', async () => {
  const chunk = (n: number, seed: number) =>
    Buffer.from(Array.from({ length: n }, (_, i) => (i * seed) % 256));
  const cases: Buffer[][] = [
    [chunk(10, 3)],
    [chunk(10, 3), chunk(7, 5)],
    Array.from({ length: 40 }, (_, i) => chunk(65_536 + i, i + 1)), // > 2 MiB: copied in slices
  ];
  for (const chunks of cases) {
    const size = chunks.reduce((s, c) => s + c.length, 0);
    assert.ok((await concatInSlices(chunks, size, 1024 * 1024)).equals(Buffer.concat(chunks)));
  }
});
