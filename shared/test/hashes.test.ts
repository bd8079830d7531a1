// RC-26: hash attribute lists, hex and base64 digests, unknown algorithms, mismatch detection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  MultiHasher,
  checkableAlgorithms,
  compareHashes,
  computeHashList,
  digestToHex,
  formatHashList,
  parseHashList,
  verifyBytes,
} from '@rsnotify/shared';

const BODY = Buffer.from('hello resourcesync\n');
const MD5 = createHash('md5').update(BODY).digest();
const SHA256 = createHash('sha256').update(BODY).digest();

test('RC-26: hex and base64 (standard and URL-safe) digests decode to the same lower-case hex', () => {
  const hex = MD5.toString('hex');
  assert.equal(digestToHex('md5', hex), hex);
  assert.equal(digestToHex('md5', hex.toUpperCase()), hex);
  assert.equal(digestToHex('md5', MD5.toString('base64')), hex);
  assert.equal(digestToHex('sha-256', SHA256.toString('base64url')), SHA256.toString('hex'));
  assert.equal(
    digestToHex('sha256', SHA256.toString('hex')),
    SHA256.toString('hex'),
    'alias without dash',
  );
  assert.equal(digestToHex('md5', 'abc'), undefined, 'wrong length');
  assert.equal(
    digestToHex('md5', SHA256.toString('hex')),
    undefined,
    'a sha-256 digest is not an md5',
  );
  assert.equal(digestToHex('crc32', 'abcd'), undefined, 'unknown algorithm');
});

test('RC-26: several tokens separated by any XML whitespace, newlines included; tokens kept as written', () => {
  const attr = `md5:${MD5.toString('hex')}\n\t   sha-256:${SHA256.toString('base64')}  SHA-1:zz x-foo:bar nocolon`;
  const list = parseHashList(attr);
  assert.deepEqual(
    list.map((t) => t.algorithm),
    ['md5', 'sha-256', 'sha-1', 'x-foo', ''],
  );
  assert.equal(list[0]!.hex, MD5.toString('hex'));
  assert.equal(list[1]!.hex, SHA256.toString('hex'));
  assert.equal(list[1]!.value, SHA256.toString('base64'), 'lexical value kept for round trips');
  assert.equal(list[2]!.hex, undefined, 'unparsable value: no hex');
  assert.equal(
    formatHashList(list),
    `md5:${MD5.toString('hex')} sha-256:${SHA256.toString('base64')} sha-1:zz x-foo:bar nocolon`,
  );
  assert.deepEqual(parseHashList(''), []);
});

test('RC-26: unknown algorithms and unparsable values are ignored, never a mismatch', () => {
  const list = parseHashList('x-unknown:1234 sha-1:not-a-digest');
  assert.deepEqual(checkableAlgorithms(list), []);
  assert.deepEqual(verifyBytes(list, BODY), []);
});

test('RC-26: a digest that differs is reported with expected and actual; a match is an empty list', () => {
  const good = parseHashList(
    `md5:${MD5.toString('base64')} sha-256:${SHA256.toString('hex').toUpperCase()}`,
  );
  assert.deepEqual(verifyBytes(good, BODY), []);
  const other = Buffer.from('tampered');
  const mismatches = verifyBytes(good, other);
  assert.deepEqual(
    mismatches.map((m) => m.algorithm),
    ['md5', 'sha-256'],
  );
  assert.equal(mismatches[0]!.expected, MD5.toString('hex'));
  assert.equal(mismatches[0]!.actual, createHash('md5').update(other).digest('hex'));
  // compareHashes only judges algorithms it was given digests for.
  assert.deepEqual(compareHashes(good, new Map([['md5', MD5.toString('hex').toUpperCase()]])), []);
});

test('MultiHasher digests chunked input like one-shot hashing; computeHashList builds checkable tokens', () => {
  const h = new MultiHasher(['md5', 'sha-256', 'md5']);
  h.update(BODY.subarray(0, 5));
  h.update(BODY.subarray(5));
  assert.equal(h.length, BODY.length);
  assert.deepEqual(
    [...h.digests()],
    [
      ['md5', MD5.toString('hex')],
      ['sha-256', SHA256.toString('hex')],
    ],
  );
  const list = computeHashList(BODY, ['sha-1', 'sha-512']);
  assert.deepEqual(verifyBytes(list, BODY), []);
  assert.deepEqual(parseHashList(formatHashList(list)), list);
});

test('RC-26: a hex digest is ASCII hex digits only; anything else is tried as base64', () => {
  const hex = MD5.toString('hex');
  for (const at of [0, 7, 31]) {
    for (const c of ['g', 'G', '/', ':', '@', '`', '\u0010', '０', 'é']) {
      const value = hex.slice(0, at) + c + hex.slice(at + 1);
      assert.equal(digestToHex('md5', value), undefined, JSON.stringify(value));
    }
  }
  assert.equal(
    digestToHex(
      'md5',
      hex.replace(/[a-f]/g, (x) => x.toUpperCase()),
    ),
    hex,
  );
});
