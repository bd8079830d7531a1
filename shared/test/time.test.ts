import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareDateTime, parseDateTime, formatMicros, DateTimeError } from '@rsnotify/shared';

test('RC-28: every W3C datetime precision parses; reduced precision compares as the start of the period', () => {
  const cases: [string, string][] = [
    ['2013', '2013-01-01T00:00:00Z'],
    ['2013-07', '2013-07-01T00:00:00Z'],
    ['2013-07-16', '2013-07-16T00:00:00Z'],
    ['2013-07-16T19:20+01:00', '2013-07-16T18:20:00Z'],
    ['2013-07-16T19:20:30+01:00', '2013-07-16T18:20:30Z'],
    ['2013-07-16T19:20:30.45+01:00', '2013-07-16T18:20:30.450Z'],
  ];
  for (const [a, b] of cases) {
    assert.equal(compareDateTime(parseDateTime(a), parseDateTime(b)), 0, `${a} = ${b}`);
  }
});

test('RN-5: microsecond values compare exactly, trailing zeros do not matter, one microsecond does', () => {
  const a = parseDateTime('2026-11-22T10:00:00.123456Z');
  assert.equal(compareDateTime(a, parseDateTime('2026-11-22T10:00:00.1234560Z')), 0);
  assert.equal(compareDateTime(a, parseDateTime('2026-11-22T10:00:00.123457Z')), -1);
  assert.equal(
    compareDateTime(
      parseDateTime('2026-11-22T10:00:00.9Z'),
      parseDateTime('2026-11-22T10:00:00.10Z'),
    ),
    1,
  );
  assert.equal(
    compareDateTime(
      parseDateTime('2026-11-22T10:00:00Z'),
      parseDateTime('2026-11-22T10:00:00.000001Z'),
    ),
    -1,
  );
  assert.equal(parseDateTime(' 2026-11-22T10:00:00.5Z ').lexical, '2026-11-22T10:00:00.5Z');
});

test('RC-28: malformed values are RS_BAD_DATETIME', () => {
  for (const bad of [
    '',
    '13-01-01',
    '2013-13-01',
    '2013-02-30',
    '2013-01-01T10:00',
    '2013-01-01T25:00Z',
    'yesterday',
  ]) {
    assert.throws(
      () => parseDateTime(bad),
      (e: unknown) => e instanceof DateTimeError && e.code === 'RS_BAD_DATETIME',
      bad,
    );
  }
});

test('formatMicros writes six fractional digits that parse back to the same instant', () => {
  const micros = 1_795_000_000_123_456n;
  const text = formatMicros(micros);
  assert.match(text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.123456Z$/);
  assert.equal(parseDateTime(text).key.endsWith('.123456'), true);
});

test('parseDateTime reads the common UTC form by position exactly as the W3C pattern does', async () => {
  const { isPlainUtcDateTime, parseDateTimeByPattern } = await import('../src/time/index.js');
  const outcome = (read: (v: string) => unknown, v: string): unknown => {
    try {
      return read(v);
    } catch (e) {
      return { code: (e as DateTimeError).code, message: (e as Error).message };
    }
  };
  const cases = [
    '2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00.000Z',
    '2026-01-01T00:00:00.120Z',
    '2026-11-22T10:00:00.123456789012Z',
    '2024-02-29T23:59:59Z',
    '2023-02-29T00:00:00Z',
    '2026-12-31T23:59:60Z',
    '2026-12-31T23:59:60.5Z',
    '0099-01-01T00:00:00Z',
    '0100-01-01T00:00:00Z',
    '2026-00-01T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-01-00T00:00:00Z',
    '2026-01-01T24:00:00Z',
    '2026-01-01T00:60:00Z',
    '2026-01-01T00:00:61Z',
    '2026-01-01T00:00:00.Z',
    '2026-01-01T00:00:00.1.2Z',
    '2026-01-01T00:00:00,5Z',
    '2026-01-01T00:00:0aZ',
    '2026-01-01t00:00:00Z',
    '2026/01/01T00:00:00Z',
    '20260-01-01T00:00:00Z',
    ' 2026-01-01T00:00:00Z',
    '2026-01-01T00:00:00Z ',
    '2026-01-01T00:00:00z',
    '2026-01-01T00:00:00+00:00',
    '2026-01-01T00:00:00.5-05:30',
    '2026-01-01T00:00Z',
    '2026-01-01',
    '２026-01-01T00:00:00Z',
    '2026-01-01T00:00:00.１Z',
  ];
  // Every one-character change of a valid value, to reach the edges the table above does not name.
  const base = '2026-06-15T12:34:56.789Z';
  for (let at = 0; at < base.length; at++)
    for (const c of ['0', '9', '-', ':', '.', 'T', 'Z', ' ', 'x'])
      cases.push(base.slice(0, at) + c + base.slice(at + 1));
  for (const v of cases) {
    // What isPlainUtcDateTime accepts, the pattern accepts (a check-only read relies on it).
    if (isPlainUtcDateTime(v)) assert.doesNotThrow(() => parseDateTimeByPattern(v), v);
    assert.deepEqual(
      outcome((x) => parseDateTime(x, 'here'), v),
      outcome((x) => parseDateTimeByPattern(x, 'here'), v),
      v,
    );
  }
});
