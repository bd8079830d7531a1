import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalTarget, encodePathSegment, encodeResourceName, generateName } from './names.js';
import { createRandom } from './random.js';

test('odd names are percent-encoded once, with sub-delims kept literal in paths', () => {
  assert.equal(encodePathSegment('a&b=1.txt'), 'a&b=1.txt');
  assert.equal(encodePathSegment('100% 1.txt'), '100%25%201.txt');
  assert.equal(encodePathSegment('naïve café'), 'na%C3%AFve%20caf%C3%A9');
  assert.equal(encodePathSegment("o'neil"), "o'neil");
  assert.equal(
    encodeResourceName({
      segments: ['fish & chips', 'search'],
      query: [
        ['q', "a b&c='d'"],
        ['page', 'é'],
      ],
    }),
    '/resources/fish%20&%20chips/search?q=a%20b%26c%3D%27d%27&page=%C3%A9',
  );
});

test('an encoded name survives the WHATWG URL parser unchanged (what undici sends is what we serve)', () => {
  const rng = createRandom(7);
  for (let n = 0; n < 500; n++) {
    const target = encodeResourceName(generateName(rng, n, 1));
    const parsed = new URL(`http://127.0.0.1:1${target}`);
    assert.equal(parsed.pathname + parsed.search, target, `name ${n}`);
  }
});

test('canonicalTarget maps differently-encoded requests to the same key and refuses malformed ones', () => {
  const key = encodeResourceName({
    segments: ['été', 'a&b=1.txt'],
    query: [
      ['id', '1'],
      ['lang', 'fr'],
    ],
  });
  assert.equal(canonicalTarget(key), key);
  assert.equal(canonicalTarget('/resources/%c3%a9t%c3%a9/a%26b%3D1.txt?id=1&lang=fr'), key);
  assert.equal(canonicalTarget('/resources/été/a&b=1.txt?id=1&lang=fr'), key);
  assert.equal(canonicalTarget('/resources/%E0%A4%A.txt'), undefined);
});

test('generated file names never collide with generated directory names', () => {
  const rng = createRandom(3);
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (let n = 0; n < 2000; n++) {
    const name = generateName(rng, n, 0.7);
    const path = name.segments.join('/');
    files.add(path + (name.query ? `?${name.query.map((p) => p.join('=')).join('&')}` : ''));
    for (let i = 1; i < name.segments.length; i++) dirs.add(name.segments.slice(0, i).join('/'));
  }
  for (const d of dirs)
    assert.ok(![...files].some((f) => f === d), `directory ${d} is also a file`);
  assert.equal(files.size, 2000, 'every generated name is distinct');
});
