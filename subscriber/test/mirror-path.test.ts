// URI -> mirror path (promise 4): traversal attempts never leave mirrorDir, odd but legal URIs map to
// distinct files, and the reserved names (index, temp files) cannot be produced by any URI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve, sep, basename } from 'node:path';
import { isRsnotifyError } from '@rsnotify/shared';
import { INDEX_FILE_NAME, isTempFileName, uriToMirrorPath } from '../src/mirror/index.js';

const M = resolve('/srv/mirror');
const inside = (p: string): boolean => p.startsWith(M + sep);

const traversal = [
  'http://example.org/../../etc/passwd',
  'http://example.org/a/../../../../etc/passwd',
  'http://example.org/%2e%2e/%2e%2e/etc/passwd',
  'http://example.org/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd',
  'http://example.org/..%2F..%2Fetc',
  'http://example.org/a%2Fb',
  'http://example.org/a%5C..%5C..%5Cetc',
  'http://example.org/a\\..\\..\\etc',
  'http://example.org/%00',
  'http://example.org/a%00.txt',
  'http://example.org/a%0Ab',
  'http://example.org/.%2e/x',
  'http://example.org/%2e',
  'http://..:80/x',
  'http://example.org/a//b',
  'http://example.org/%C0%AE%C0%AE/x',
  'file:///etc/passwd',
  '/etc/passwd',
  'http://example.org/' + 'a'.repeat(5000),
];

for (const uri of traversal) {
  test(`promise 4: ${JSON.stringify(uri.slice(0, 60))} never maps outside mirrorDir`, () => {
    try {
      const p = uriToMirrorPath(M, uri);
      assert.ok(inside(p), `${p} is under ${M}`);
      assert.ok(!p.slice(M.length).split(sep).includes('..'));
      assert.ok(!p.includes('\0'));
    } catch (err) {
      assert.ok(
        isRsnotifyError(err, 'RSN_PATH_ESCAPE') || isRsnotifyError(err, 'RSN_PATH_UNMAPPABLE'),
        String(err),
      );
    }
  });
}

test('promise 4: separators and dot segments hidden in escapes are refused with RSN_PATH_ESCAPE', () => {
  for (const uri of [
    'http://example.org/..%2F..%2Fx',
    'http://example.org/a%2Fb',
    'http://example.org/a%5Cb',
  ]) {
    // An escaped separator stays escaped inside one file name: never a directory step.
    const p = uriToMirrorPath(M, uri);
    assert.ok(inside(p), p);
    assert.ok(
      !p
        .slice(M.length + 1)
        .split('/')
        .slice(1)
        .includes('..'),
      p,
    );
    assert.equal(
      p.split('/').length,
      M.split('/').length + 2,
      `one name under the host directory: ${p}`,
    );
  }
  for (const uri of [
    'http://example.org/a%00b',
    'http://example.org/a//b',
    'ftp://example.org/x',
    'http://example.org/x%zz',
  ]) {
    assert.throws(
      () => uriToMirrorPath(M, uri),
      (e) => isRsnotifyError(e, 'RSN_PATH_UNMAPPABLE'),
      uri,
    );
  }
});

test('promise 4: distinct odd but legal URIs map to distinct files under their host directory', () => {
  const uris = [
    'http://example.org/a b',
    'http://example.org/a%2520b',
    'http://example.org/a+b',
    'http://example.org/a&b',
    'http://example.org/caf%C3%A9',
    'http://example.org/cafe%CC%81',
    'http://example.org/日本語/資料',
    'http://example.org/r?x=1&y=2',
    'http://example.org/r?x=1%26y=2',
    'http://example.org/r?x=1/2',
    'http://example.org/r?x=1%2F2',
    'http://example.org/r?',
    'http://example.org/r',
    'http://example.org/r%3F',
    'http://example.org/r%3Fx=1&y=2',
    'http://example.org/r/',
    'http://example.org/r/?',
    'http://example.org/',
    'http://example.org/x%25',
    'http://example.org/a%26b',
    'http://example.org/%5B1%5D',
    'http://example.org/[1]',
    'http://example.org/%FF',
    'http://example.org/%C3%BF',
    'http://example.org:8080/r',
    'https://example.org/r',
    'http://EXAMPLE.org./r',
    'http://example.org/R',
    'http://example.org/a:b',
    'http://example.org/a%3Ab',
    'http://example.org/.hidden',
    'http://example.org/...',
    'http://example.org/' + 'x'.repeat(300),
    'http://example.org/' + 'x'.repeat(301),
    'http://example.org/' + 'x'.repeat(300) + '?q',
    'http://example.org/%2Ftmp-00',
    'http://example.org/a%2Fb.txt',
    'http://example.org/a/b.txt',
    'http://example.org/%2F',
    'http://example.org/%2F%2Findex',
    'http://example.org/x%25%25self',
  ].filter((u) => {
    try {
      uriToMirrorPath(M, u);
      return true;
    } catch {
      return false;
    }
  });
  assert.ok(uris.length >= 30, 'most of them are mappable');
  const seen = new Map<string, string>();
  for (const uri of uris) {
    const p = uriToMirrorPath(M, uri);
    assert.ok(inside(p), p);
    assert.ok(Buffer.byteLength(basename(p)) <= 255, 'file names fit the file system');
    assert.ok(!isTempFileName(basename(p)), 'no URI maps to a temp file name');
    const other = seen.get(p);
    assert.equal(other, undefined, `${uri} and ${other} collide at ${p}`);
    seen.set(p, uri);
  }
});

test('promise 4: equivalent spellings of one URI share a file (WHATWG normalisation)', () => {
  assert.equal(
    uriToMirrorPath(M, 'http://example.org/a%20b'),
    uriToMirrorPath(M, 'http://example.org/a b'),
  );
  assert.equal(
    uriToMirrorPath(M, 'http://Example.ORG/x'),
    uriToMirrorPath(M, 'http://example.org/x'),
  );
  assert.equal(
    uriToMirrorPath(M, 'http://example.org:80/x'),
    uriToMirrorPath(M, 'http://example.org/x'),
  );
  assert.equal(
    uriToMirrorPath(M, 'http://example.org/x#frag'),
    uriToMirrorPath(M, 'http://example.org/x'),
  );
  // RFC 3986 §6.2.2.1: hex digits of an escape are case-insensitive.
  assert.equal(
    uriToMirrorPath(M, 'http://example.org/a%2fb.txt'),
    uriToMirrorPath(M, 'http://example.org/a%2Fb.txt'),
  );
});

test('layout: host directory with port, readable segments, the reserved index name for a trailing slash', () => {
  assert.equal(
    uriToMirrorPath(M, 'http://127.0.0.1:8889/resources/70'),
    `${M}/127.0.0.1%3A8889/resources/70`,
  );
  assert.equal(
    uriToMirrorPath(M, 'http://example.org/dir/'),
    `${M}/example.org/dir/${INDEX_FILE_NAME}`,
  );
  assert.equal(uriToMirrorPath(M, 'http://example.org/a b/é?q=1'), `${M}/example.org/a b/é?q=1`);
  // An encoded '/' stays encoded in one file name, distinct from the file b.txt in directory a.
  assert.equal(
    uriToMirrorPath(M, 'http://example.org/m/a%2Fb.txt'),
    `${M}/example.org/m/a%2Fb.txt`,
  );
  assert.equal(uriToMirrorPath(M, 'http://example.org/m/a/b.txt'), `${M}/example.org/m/a/b.txt`);
});

test('promise 4: a plain ASCII segment maps as its escaped equivalent does (the fast path agrees)', () => {
  // Segments of printable ASCII skip the decoding path; escaping one unreserved character forces
  // them through it (RFC 3986 §6.2.2.2: the same URI), so both must name the same file.
  const segments = [
    'abc',
    'item-42.txt',
    'a.b.c',
    '...',
    '.hidden',
    'x~y_z',
    "a!$&'()*+,;=:@b",
    'A1',
    'tag-1-',
  ];
  for (const segment of segments) {
    const at = segment.search(/[A-Za-z0-9._~-]/);
    const escaped =
      segment.slice(0, at) +
      `%${segment.charCodeAt(at).toString(16).toUpperCase()}` +
      segment.slice(at + 1);
    const plain = uriToMirrorPath(M, `http://example.org/${segment}/f`);
    assert.equal(uriToMirrorPath(M, `http://example.org/${escaped}/f`), plain, segment);
    assert.equal(basename(resolve(plain, '..')), segment);
  }
});
