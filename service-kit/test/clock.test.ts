import { test } from 'node:test';
import assert from 'node:assert/strict';
import { systemClock, systemRandom } from '@rsnotify/service-kit';

test('systemClock reads wall-clock milliseconds and systemRandom stays in [0, 1)', () => {
  const before = Date.now();
  const t = systemClock.now();
  assert.ok(t >= before && t <= Date.now());
  for (let i = 0; i < 100; i++) {
    const r = systemRandom();
    assert.ok(r >= 0 && r < 1);
  }
});
