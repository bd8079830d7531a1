// W3C Datetime (RC-28): every precision from a bare year to fractional seconds of any length, `Z` or
// an offset. Comparison is exact at the precision given (RN-5 contiguity depends on equality of
// microsecond values), so instants are held as a sortable key, never as a lossy JS Date.
import { RsnotifyError, type CodesOf, type SHARED_ERRORS } from '../errors/index.js';

export type DateTimePrecision = 'year' | 'month' | 'day' | 'minute' | 'second' | 'fraction';

export interface DateTime {
  /** The text as written; serialisers emit this so round trips are exact. */
  readonly lexical: string;
  /**
   * UTC instant as `YYYY-MM-DDTHH:MM:SS.f` with trailing zeros removed from the fraction (and the dot
   * kept, so the key of a whole second ends in '.'). Keys compare with plain string comparison.
   */
  readonly key: string;
  /** Milliseconds since the epoch (lossy below 1 ms; for display, lag and timers only). */
  readonly epochMs: number;
  readonly precision: DateTimePrecision;
  /**
   * Set when the text had a time but no zone and was read as UTC (parseSourceDateTime): Sources do
   * write `2012-06-13T17:13:47`; a consumer records a warning instead of refusing the document.
   */
  readonly assumedUtc?: true;
}

const W3C =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;

export class DateTimeError extends RsnotifyError<CodesOf<typeof SHARED_ERRORS, 'DateTimeError'>> {
  constructor(value: string, where?: string) {
    super(
      'RS_BAD_DATETIME',
      `not a W3C datetime${where ? ` in ${where}` : ''}: ${JSON.stringify(value)}`,
      {
        details: { value, where },
      },
    );
    this.name = 'DateTimeError';
  }
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Parses a W3C datetime. Reduced precision means the start of the period (RC-28 [derived]). */
export function parseDateTime(value: string, where?: string): DateTime {
  return parseUtcSeconds(value) ?? parseDateTimeByPattern(value, where);
}

/** Where `YYYY-MM-DDTHH:MM:SS` has its digits. */
const DIGITS_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18] as const;
const digit = (text: string, at: number): number => text.charCodeAt(at) - 0x30;
const twoDigits = (text: string, at: number): number => digit(text, at) * 10 + digit(text, at + 1);
const isDigit = (text: string, at: number): boolean => (text.charCodeAt(at) - 0x30) >>> 0 < 10;
const isAt = (text: string, at: number, char: string): boolean =>
  text.charCodeAt(at) === char.charCodeAt(0);

/**
 * True for the form nearly every document writes, `YYYY-MM-DDTHH:MM:SS[.f]Z`, naming a real instant
 * (no leap second, year 100 or later): parseDateTime accepts it, and parseSourceDateTime with it.
 * Read by position, with no regex match array and its substrings: a check that keeps no entry (the
 * hub's, RT-7) validates an entry's times with this alone, and a value it does not cover is parsed.
 */
export function isPlainUtcDateTime(text: string): boolean {
  const n = text.length;
  // A leading digit and a trailing Z: trim() would return the text unchanged.
  if (n < 20 || !isAt(text, n - 1, 'Z')) return false;
  for (const at of DIGITS_AT) if (!isDigit(text, at)) return false;
  if (!isAt(text, 4, '-') || !isAt(text, 7, '-') || !isAt(text, 10, 'T')) return false;
  if (!isAt(text, 13, ':') || !isAt(text, 16, ':')) return false;
  if (n > 20) {
    if (n === 21 || !isAt(text, 19, '.')) return false;
    for (let at = 20; at < n - 1; at++) if (!isDigit(text, at)) return false;
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  if (year < 100 || month < 1 || month > 12) return false;
  const day = twoDigits(text, 8);
  if (day < 1 || day > daysInMonth(year, month)) return false;
  return twoDigits(text, 11) <= 23 && twoDigits(text, 14) <= 59 && twoDigits(text, 17) <= 59;
}

/**
 * A value isPlainUtcDateTime accepts, read by position: the same DateTime parseDateTimeByPattern
 * gives (the key is the written digits). Anything else is left to parseDateTimeByPattern (undefined).
 */
function parseUtcSeconds(text: string): DateTime | undefined {
  if (!isPlainUtcDateTime(text)) return undefined;
  const n = text.length;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  const wholeMs = Date.UTC(year, month - 1, day, hour, minute, second);
  const fraction = n > 20 ? trimTrailingZeros(text.slice(20, n - 1)) : '';
  return {
    lexical: text,
    key: `${text.slice(0, 19)}.${fraction}`,
    epochMs: wholeMs + (fraction ? Number(`0.${fraction}`) * 1000 : 0),
    precision: n > 20 ? 'fraction' : 'second',
  };
}

/**
 * parseDateTime by the W3C pattern alone, for every form (reduced precision, offsets, leap seconds);
 * parseDateTime takes the positional path above first. Exported as the reference its tests hold it to.
 */
export function parseDateTimeByPattern(value: string, where?: string): DateTime {
  const text = value.trim();
  const m = W3C.exec(text);
  if (!m) throw new DateTimeError(value, where);
  // Indexed reads: destructuring a match array goes through the iterator protocol (measurably slower).
  const y = m[1]!,
    mo = m[2],
    d = m[3],
    hh = m[4],
    mi = m[5],
    ss = m[6],
    frac = m[7],
    tz = m[8];
  const year = Number(y);
  const month = mo === undefined ? 1 : Number(mo);
  const day = d === undefined ? 1 : Number(d);
  const hour = hh === undefined ? 0 : Number(hh);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = ss === undefined ? 0 : Number(ss);
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth(year, month) ||
    hour > 23 ||
    minute > 59 ||
    second > 60
  ) {
    throw new DateTimeError(value, where); // 2021-02-30 too
  }
  let offsetMinutes = 0;
  if (tz !== undefined && tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const oh = Number(tz.slice(1, 3));
    const om = Number(tz.slice(4, 6));
    if (oh > 23 || om > 59) throw new DateTimeError(value, where);
    offsetMinutes = sign * (oh * 60 + om);
  }
  const wholeMs = Date.UTC(year, month - 1, day, hour, minute, second) - offsetMinutes * 60_000;
  const fraction = frac === undefined ? '' : trimTrailingZeros(frac);
  let key: string;
  if (offsetMinutes === 0 && second < 60 && year >= 100) {
    // Already UTC (the common `...Z` form, and every reduced precision): the key is the written
    // digits. This path allocates no Date; parse cost matters for 50,000-entry Change Lists.
    key = `${y}-${mo ?? '01'}-${d ?? '01'}T${hh ?? '00'}:${mi ?? '00'}:${ss ?? '00'}.${fraction}`;
  } else {
    const utc = new Date(wholeMs);
    key =
      `${pad(utc.getUTCFullYear(), 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())}` +
      `T${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}.${fraction}`;
  }
  const precision: DateTimePrecision =
    frac !== undefined
      ? 'fraction'
      : ss !== undefined
        ? 'second'
        : mi !== undefined
          ? 'minute'
          : d !== undefined
            ? 'day'
            : mo !== undefined
              ? 'month'
              : 'year';
  const epochMs = wholeMs + (fraction ? Number(`0.${fraction}`) * 1000 : 0);
  return { lexical: text, key, epochMs, precision };
}

/** A date and time with seconds or minutes but no zone designator. */
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/;

/**
 * Lenient reading for times inside documents a Source serves (lastmod, entry datetime): a time
 * without a zone is read as UTC and marked `assumedUtc` rather than refused. Everything else is as
 * strict as parseDateTime. Notification `from`/`until` must keep using parseDateTime (RN-5).
 */
export function parseSourceDateTime(value: string, where?: string): DateTime {
  // Ending in Z, the value has a zone: ZONELESS cannot match it.
  if (value.charCodeAt(value.length - 1) === 0x5a) return parseDateTime(value, where);
  const text = value.trim();
  if (!ZONELESS.test(text)) return parseDateTime(value, where);
  const utc = parseDateTime(`${text}Z`, where);
  return {
    lexical: text,
    key: utc.key,
    epochMs: utc.epochMs,
    precision: utc.precision,
    assumedUtc: true,
  };
}

function trimTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits.charCodeAt(end - 1) === 0x30) end--;
  return end === digits.length ? digits : digits.slice(0, end);
}

/** Exact comparison at the precision written: -1, 0 or 1. */
export function compareDateTime(a: DateTime, b: DateTime): -1 | 0 | 1 {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

export function sameInstant(a: DateTime, b: DateTime): boolean {
  return a.key === b.key;
}

export function maxDateTime(a: DateTime, b: DateTime): DateTime {
  return compareDateTime(a, b) >= 0 ? a : b;
}

/** Formats microseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.ffffffZ` (the simulator's form). */
export function formatMicros(epochMicros: bigint | number): string {
  const micros = BigInt(epochMicros);
  const ms = Number(micros / 1000n);
  const d = new Date(ms);
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${frac.toString().padStart(6, '0')}Z`
  );
}

/** `YYYY-MM-DDTHH:MM:SS[.mmm]Z` from milliseconds; whole seconds drop the fraction. */
export function formatMillis(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

export function dateTimeFromMicros(epochMicros: bigint | number): DateTime {
  return parseDateTime(formatMicros(epochMicros));
}

export function dateTimeFromMillis(epochMs: number): DateTime {
  return parseDateTime(formatMillis(epochMs));
}

/** A monotonic-enough microsecond clock: wall clock in µs, never repeating or going backwards. */
export function createMicrosClock(now: () => number = Date.now): () => bigint {
  let last = 0n;
  return () => {
    let t = BigInt(now()) * 1000n;
    if (t <= last) t = last + 1n;
    last = t;
    return t;
  };
}

/** Parses an HTTP-date (RFC 9110) as sent in `Date`/`Last-Modified`; undefined when unparsable. */
export function parseHttpDate(value: string | undefined | null): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
