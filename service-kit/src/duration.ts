// Durations in configuration and on the command line: a number of milliseconds, or text with a unit.

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `250`, `'250ms'`, `'5s'`, `'2m'`, `'1h'`, `'1d'` -> milliseconds; throws RangeError otherwise. */
export function parseDuration(value: number | string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`not a duration: ${value}`);
    return value;
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!m)
    throw new RangeError(`not a duration: ${JSON.stringify(value)} (use e.g. 500ms, 30s, 5m)`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']!);
}
