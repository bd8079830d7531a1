import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decideCorruption,
  decideNotificationFate,
  decideRequestFate,
  defaultFaults,
  isListServed,
  isUnavailableInScope,
  updateFaults,
} from './faults.js';
import { nextPostStep, DEFAULT_RETRY } from './publisher.js';
import { createRandom } from './random.js';

test('the seeded RNG repeats for a seed and differs between seeds and streams', () => {
  const a = createRandom(42),
    b = createRandom(42),
    c = createRandom(43),
    d = createRandom(42, 1);
  const seq = (r: ReturnType<typeof createRandom>) => Array.from({ length: 8 }, () => r.next());
  const sa = seq(a);
  assert.deepEqual(sa, seq(b));
  assert.notDeepEqual(sa, seq(c));
  assert.notDeepEqual(sa, seq(d));
  assert.ok(sa.every((x) => x >= 0 && x < 1));
});

test('fault counts are consumed one per decision, before probabilities', () => {
  const f = defaultFaults();
  f.dropNext = 2;
  let r = decideNotificationFate(f, () => false);
  assert.equal(r.fate.drop, true);
  assert.equal(r.dropNext, 1);
  f.dropNext = r.dropNext;
  r = decideNotificationFate(f, () => false);
  f.dropNext = r.dropNext;
  assert.equal(r.fate.drop, true);
  r = decideNotificationFate(f, () => false);
  assert.equal(r.fate.drop, false);
  f.serverErrorNext = 1;
  const q = decideRequestFate(f, 'resource', () => false);
  assert.equal(q.fate.serverError, true);
  assert.equal(q.serverErrorNext, 0);
  f.corruptNext = 1;
  assert.deepEqual(
    decideCorruption(f, () => false),
    { corrupt: true, corruptNext: 0 },
  );
});

test('serverErrorScope limits which requests get injected 500s', () => {
  const f = defaultFaults();
  f.serverErrorProbability = 1;
  f.serverErrorScope = 'resources';
  const always = (p: number) => p >= 1;
  assert.equal(decideRequestFate(f, 'resource', always).fate.serverError, true);
  assert.equal(decideRequestFate(f, 'document', always).fate.serverError, false);
  f.serverErrorScope = 'documents';
  assert.equal(decideRequestFate(f, 'resource', always).fate.serverError, false);
  assert.equal(decideRequestFate(f, 'document', always).fate.serverError, true);
});

test('busyAfterListsNext fires after a Resource List or Change List answered 200, never after the index or a resource', () => {
  const cases: [path: string, status: number, fires: boolean][] = [
    ['/resourcelist.xml', 200, true],
    ['/resourcelist/3/0.xml', 200, true],
    ['/changelist/7.xml', 200, true],
    ['/changelist/7.xml', 304, false],
    ['/changelist/7.xml', 503, false],
    ['/changelist.xml', 200, false],
    ['/capabilitylist.xml', 200, false],
    ['/resources/changelist/7.xml', 200, false],
  ];
  for (const [path, status, fires] of cases)
    assert.equal(isListServed(path, status), fires, `${path} ${status}`);
});

test('listUnavailableScope: the 503s hit the Change Lists and their index, and with all-lists the Resource List and its parts too', () => {
  const cases: [path: string, changeLists: boolean, allLists: boolean][] = [
    ['/changelist.xml', true, true],
    ['/changelist/7.xml', true, true],
    ['/resourcelist.xml', false, true],
    ['/resourcelist/3/0.xml', false, true],
    ['/capabilitylist.xml', false, false],
    ['/.well-known/resourcesync', false, false],
    ['/resources/changelist/7.xml', false, false],
    ['/resources/resourcelist.xml', false, false],
  ];
  const f = defaultFaults();
  assert.equal(f.listUnavailableScope, 'change-lists', 'the default');
  for (const [path, changeLists, allLists] of cases) {
    f.listUnavailableScope = 'change-lists';
    assert.equal(isUnavailableInScope(f, path), changeLists, `${path} change-lists`);
    f.listUnavailableScope = 'all-lists';
    assert.equal(isUnavailableInScope(f, path), allLists, `${path} all-lists`);
  }
  updateFaults(f, { listUnavailableScope: 'change-lists' });
  assert.equal(f.listUnavailableScope, 'change-lists');
  assert.throws(
    () => updateFaults(f, { listUnavailableScope: 'resources' }),
    /change-lists\|all-lists/,
  );
});

test('a misspelt or out-of-range switch is refused, not silently ignored', () => {
  const f = defaultFaults();
  assert.throws(() => Object.assign(f, { dropRate: 1 }), TypeError);
  assert.throws(() => updateFaults(f, { dropRate: 1 }), /unknown fault switch/);
  assert.throws(() => updateFaults(f, { dropProbability: 2 }), /probability/);
  assert.throws(() => updateFaults(f, { specVersion: '2.0' }), /specVersion/);
  updateFaults(f, { dropProbability: '0.5', specVersion: '1.0' });
  assert.equal(f.dropProbability, 0.5);
  assert.equal(f.specVersion, '1.0');
});

test('RT-7: posts are retried on 5xx, 429 and network errors within the retry age, never on other 4xx', () => {
  const p = DEFAULT_RETRY;
  assert.deepEqual(nextPostStep({ kind: 'rejected', status: 403 }, 1, 0, 0, p), { retry: false });
  assert.deepEqual(nextPostStep({ kind: 'rejected', status: 400 }, 1, 0, 0, p), { retry: false });
  assert.deepEqual(nextPostStep({ kind: 'rejected', status: 503 }, 1, 0, 0, p), {
    retry: true,
    delayMs: p.initialDelayMs,
  });
  assert.deepEqual(nextPostStep({ kind: 'rejected', status: 429 }, 2, 0, 0, p), {
    retry: true,
    delayMs: p.initialDelayMs * 2,
  });
  assert.deepEqual(nextPostStep({ kind: 'network-error', message: 'x' }, 20, 0, 0, p), {
    retry: true,
    delayMs: p.maxDelayMs,
  });
  assert.deepEqual(nextPostStep({ kind: 'network-error', message: 'x' }, 1, 0, p.maxAgeMs, p), {
    retry: false,
  });
});
