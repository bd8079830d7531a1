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
