// WH-18, WS-14..WS-16: X-Hub-Signature over the exact body bytes, four methods, checked in constant time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
  SIGNATURE_METHODS,
  computeSignature,
  normaliseTopicUrl,
  signatureHeader,
  verifySignature,
  signatureHeaderInSlices,
  verifySignatureInSlices,
} from '@rsnotify/shared';

const SECRET = 'a secret of fewer than 200 bytes';

/** `work`'s result, and how many turns the event loop took meanwhile (a chain of setImmediate). */
async function countingTurns<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    if (!counting) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  counting = false;
  return { result, turns };
}
// Any bytes do: only the signature over them is judged.
const BODY = Buffer.from('<?xml version="1.0"?>\n<urlset/>\n');

test('WH-18: all four methods sign the exact body bytes as HMAC hex', () => {
  for (const method of SIGNATURE_METHODS) {
    const expected = createHmac(method, SECRET).update(BODY).digest('hex');
    assert.equal(computeSignature(method, SECRET, BODY), expected, method);
    assert.equal(signatureHeader(method, SECRET, BODY), `${method}=${expected}`);
  }
  assert.deepEqual([...SIGNATURE_METHODS], ['sha1', 'sha256', 'sha384', 'sha512']);
});

test('WS-14: every method verifies; hex and method name compare case-insensitively', () => {
  for (const method of SIGNATURE_METHODS) {
    const header = signatureHeader(method, SECRET, BODY);
    assert.deepEqual(verifySignature(header, SECRET, BODY), { ok: true, method });
    const [m, hex] = header.split('=');
    assert.deepEqual(verifySignature(`${m!.toUpperCase()}=${hex!.toUpperCase()}`, SECRET, BODY), {
      ok: true,
      method,
    });
  }
});

test('WS-16: a missing signature is reported as missing', () => {
  assert.deepEqual(verifySignature(undefined, SECRET, BODY), { ok: false, reason: 'missing' });
  assert.deepEqual(verifySignature('', SECRET, BODY), { ok: false, reason: 'missing' });
});

test('WS-14: malformed headers and unsupported methods are refused without throwing', () => {
  assert.deepEqual(verifySignature('deadbeef', SECRET, BODY), { ok: false, reason: 'malformed' });
  assert.deepEqual(verifySignature('=abc', SECRET, BODY), { ok: false, reason: 'malformed' });
  assert.deepEqual(verifySignature('sha256=not-hex!', SECRET, BODY), {
    ok: false,
    reason: 'malformed',
  });
  assert.deepEqual(verifySignature(`md5=${'0'.repeat(32)}`, SECRET, BODY), {
    ok: false,
    reason: 'unsupported-method',
  });
});

test('WS-15: a wrong body, secret, method or truncated digest is a mismatch (constant-time compare never throws on length)', () => {
  const header = signatureHeader('sha256', SECRET, BODY);
  assert.deepEqual(verifySignature(header, SECRET, Buffer.from('other body')), {
    ok: false,
    reason: 'mismatch',
  });
  assert.deepEqual(verifySignature(header, 'another secret', BODY), {
    ok: false,
    reason: 'mismatch',
  });
  assert.deepEqual(verifySignature(header.replace('sha256', 'sha512'), SECRET, BODY), {
    ok: false,
    reason: 'mismatch',
  });
  assert.deepEqual(verifySignature(header.slice(0, -2), SECRET, BODY), {
    ok: false,
    reason: 'mismatch',
  });
  assert.deepEqual(
    verifySignature(header.slice(0, -1), SECRET, BODY),
    { ok: false, reason: 'mismatch' },
    'odd-length hex',
  );
  assert.deepEqual(verifySignature(`${header}00`, SECRET, BODY), { ok: false, reason: 'mismatch' });
  // A body given as a string signs its UTF-8 bytes.
  assert.deepEqual(
    verifySignature(signatureHeader('sha1', SECRET, 'ü'), SECRET, Buffer.from('ü', 'utf8')),
    { ok: true, method: 'sha1' },
  );
});

test('WH-6: percent-encoded unreserved characters are decoded in topic URLs, nothing else is', () => {
  assert.equal(normaliseTopicUrl('http://a/%7Euser/%41%62%2D%2E%5F'), 'http://a/~user/Ab-._');
  assert.equal(normaliseTopicUrl('http://a/x%2Fy%20z%3F'), 'http://a/x%2Fy%20z%3F');
});

test('WS-14/WS-15: verifySignatureInSlices answers as verifySignature over a body of several slices, and the event loop turns meanwhile', async () => {
  // 2.5 slices of 64 bytes: the last slice is partial.
  const body = Buffer.from('x'.repeat(160));
  const cases: (string | undefined)[] = [
    ...SIGNATURE_METHODS.map((m) => signatureHeader(m, SECRET, body)),
    signatureHeader('sha256', SECRET, body).toUpperCase(),
    signatureHeader('sha256', SECRET, body.subarray(0, 128)), // a body cut at a slice boundary
    signatureHeader('sha256', 'another secret', body),
    signatureHeader('sha256', SECRET, body).slice(0, -2),
    undefined,
    'sha256=not-hex!',
    `md5=${'0'.repeat(32)}`,
  ];
  for (const header of cases) {
    const { result: sliced, turns } = await countingTurns(() =>
      verifySignatureInSlices(header, SECRET, body, 64),
    );
    assert.deepEqual(sliced, verifySignature(header, SECRET, body), String(header));
    if (sliced.ok || (!sliced.ok && sliced.reason === 'mismatch'))
      assert.ok(turns >= 2, `the event loop turned between the slices (${turns})`);
  }
  assert.deepEqual(
    await verifySignatureInSlices(signatureHeader('sha512', SECRET, body), SECRET, body),
    { ok: true, method: 'sha512' },
    'one slice of the default size',
  );
});

test('WH-18: signatureHeaderInSlices gives the header of signatureHeader for every method, and the event loop turns between the slices', async () => {
  const body = Buffer.from('y'.repeat(200)); // 3 slices of 64 bytes and a partial one
  for (const method of SIGNATURE_METHODS) {
    const { result: sliced, turns } = await countingTurns(() =>
      signatureHeaderInSlices(method, SECRET, body, 64),
    );
    assert.equal(sliced, signatureHeader(method, SECRET, body), method);
    assert.ok(turns >= 3, `${method}: the event loop turned between the slices (${turns})`);
    assert.deepEqual(verifySignature(sliced, SECRET, body), { ok: true, method });
  }
  assert.equal(
    await signatureHeaderInSlices('sha256', SECRET, body),
    signatureHeader('sha256', SECRET, body),
    'one slice of the default size',
  );
});
