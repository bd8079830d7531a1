// The bridge store contract every engine keeps (bridge-repository.ts): registry semantics, a poll
// committed in one transaction with its notifications (the topic's next seqs, shared with
// publishes), the position surviving a reopen, and the generation fence that keeps two pollers from
// publishing the same entries twice. Each engine's test calls it with its own `open`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BridgePosition, BridgeRepository, HubRepository } from '../src/store/index.js';

export interface BridgeStores {
  readonly repo: HubRepository;
  readonly bridge: BridgeRepository;
  /** The same database, opened again (a restarted process, or another one). */
  readonly reopen: () => Promise<{ repo: HubRepository; bridge: BridgeRepository }>;
}

const TOPIC = 'http://hub.example/hub/bridge/src';
const note = (tag: string) => ({
  topicUrl: TOPIC,
  receivedAt: 1_000,
  contentType: 'application/xml',
  linkHeader: `<${TOPIC}>; rel="self"`,
  body: Buffer.from(tag),
});
const source = (name = 'src', pollUrl = 'http://source.example/capabilitylist.xml') => ({
  name,
  pollUrl,
  intervalMs: 1_000,
  now: 5,
});
const position = (coveredTo: string, consumed: number): BridgePosition => ({
  capabilityListUrl: 'http://source.example/capabilitylist.xml',
  changeListUrl: 'http://source.example/changelist-index.xml',
  discoveredAt: 10,
  indexEtag: '"i1"',
  coveredTo,
  chainFrom: coveredTo,
  lists: [
    {
      url: 'http://source.example/cl1.xml',
      from: '2026-01-01T00:00:00Z',
      until: '2026-01-02T00:00:00Z',
      consumed: 3,
      complete: true,
      lastKey: 'k3',
      coveredTo: '2026-01-02T00:00:00Z',
    },
    {
      url: 'http://source.example/cl2.xml',
      from: '2026-01-02T00:00:00Z',
      consumed,
      complete: false,
      etag: '"e2"',
      lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT',
      coveredTo,
    },
  ],
});

export function runBridgeRepositoryContract(
  engine: string,
  open: () => Promise<BridgeStores>,
): void {
  const close = async (...repos: HubRepository[]) => {
    for (const r of repos) await r.close();
  };

  test(`${engine}: bridge registry: add, get, list; a taken name is RSN_BRIDGE_EXISTS`, async () => {
    const { repo, bridge } = await open();
    const a = await bridge.addBridgedSource(source('b'));
    await bridge.addBridgedSource(source('a', 'http://other.example/'));
    assert.equal(a.generation, 0);
    assert.deepEqual(a.position, { lists: [] });
    assert.equal(a.lastPollAt, undefined);
    assert.deepEqual(
      (await bridge.listBridgedSources()).map((s) => s.name),
      ['a', 'b'],
      'by name',
    );
    await assert.rejects(bridge.addBridgedSource(source('b')), { code: 'RSN_BRIDGE_EXISTS' });
    assert.equal((await bridge.getBridgedSource('b'))?.id, a.id);
    assert.equal(await bridge.getBridgedSource('nope'), undefined);
    assert.equal(await bridge.removeBridgedSource('b'), true);
    assert.equal(await bridge.removeBridgedSource('b'), false);
    await close(repo);
  });

  test(`${engine}: ensureBridgedSource keeps a Source, takes a new interval, starts over on a new poll URL`, async () => {
    const { repo, bridge } = await open();
    const first = await bridge.ensureBridgedSource(source());
    await bridge.commitPoll(first.id, {
      generation: 0,
      position: position('2026-01-02T00:00:05Z', 1),
      notifications: [],
      now: 20,
    });
    const same = await bridge.ensureBridgedSource(source());
    assert.equal(same.id, first.id);
    assert.equal(same.position.coveredTo, '2026-01-02T00:00:05Z');
    const slower = await bridge.ensureBridgedSource({ ...source(), intervalMs: 5_000 });
    assert.equal(slower.intervalMs, 5_000);
    assert.equal(slower.position.coveredTo, '2026-01-02T00:00:05Z', 'position kept');
    const moved = await bridge.ensureBridgedSource(source('src', 'http://elsewhere.example/'));
    assert.notEqual(moved.id, first.id);
    assert.deepEqual(moved.position, { lists: [] }, 'another Source: nothing carried over');
    await close(repo);
  });

  test(`${engine}: commitPoll stores the notifications with the topic's next seqs and the position, in one commit`, async () => {
    const { repo, bridge, reopen } = await open();
    const s = await bridge.addBridgedSource(source());
    // A publish on the same topic first: the bridge continues its sequence (M-3).
    const published = await repo.appendNotification(note('published'));
    const stored = await bridge.commitPoll(s.id, {
      generation: 0,
      position: position('2026-01-02T00:00:05Z', 2),
      notifications: [note('n1'), note('n2')],
      now: 30,
    });
    assert.deepEqual(
      stored.map((r) => [r.topicId, r.seq]),
      [
        [published.topicId, 2],
        [published.topicId, 3],
      ],
    );
    assert.equal((await repo.getNotification(published.topicId, 3))?.body.toString(), 'n2');
    const after = (await bridge.getBridgedSource('src'))!;
    assert.equal(after.generation, 1);
    assert.equal(after.lastPollAt, 30);
    assert.deepEqual(after.position, position('2026-01-02T00:00:05Z', 2));
    await close(repo);
    const again = await reopen();
    const resumed = (await again.bridge.getBridgedSource('src'))!;
    assert.deepEqual(resumed.position, position('2026-01-02T00:00:05Z', 2), 'survives a reopen');
    assert.equal(resumed.generation, 1);
    assert.deepEqual(
      (await again.repo.listTopics()).map((t) => [t.url, t.lastSeq]),
      [[TOPIC, 3]],
    );
    await close(again.repo);
  });

  test(`${engine}: a commit from a position another poll already moved is refused and stores nothing`, async () => {
    const { repo, bridge } = await open();
    const s = await bridge.addBridgedSource(source());
    await bridge.commitPoll(s.id, {
      generation: 0,
      position: position('2026-01-02T00:00:05Z', 1),
      notifications: [note('first')],
      now: 30,
    });
    await assert.rejects(
      bridge.commitPoll(s.id, {
        generation: 0,
        position: position('2026-01-02T00:00:09Z', 2),
        notifications: [note('again')],
        now: 31,
      }),
      { code: 'RSN_BRIDGE_POSITION_MOVED' },
    );
    const after = (await bridge.getBridgedSource('src'))!;
    assert.equal(after.position.coveredTo, '2026-01-02T00:00:05Z', 'position untouched');
    assert.equal(after.generation, 1);
    assert.deepEqual(
      (await repo.listTopics()).map((t) => t.lastSeq),
      [1],
      'no notification appended',
    );
    await close(repo);
  });

  test(`${engine}: two pollers committing from the same read: exactly one wins`, async () => {
    const { repo, bridge, reopen } = await open();
    const other = await reopen();
    const s = await bridge.addBridgedSource(source());
    const results = await Promise.allSettled(
      [bridge, other.bridge].map((b, i) =>
        b.commitPoll(s.id, {
          generation: 0,
          position: position('2026-01-02T00:00:05Z', 1),
          notifications: [note(`from-${i}`)],
          now: 40,
        }),
      ),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected');
    assert.equal((refused?.reason as { code?: string }).code, 'RSN_BRIDGE_POSITION_MOVED');
    assert.deepEqual(
      (await repo.listTopics()).map((t) => t.lastSeq),
      [1],
    );
    await close(other.repo, repo);
  });

  test(`${engine}: recordPollOutcome keeps the error and the time, not the position; removal drops the lists`, async () => {
    const { repo, bridge } = await open();
    const s = await bridge.addBridgedSource(source());
    await bridge.commitPoll(s.id, {
      generation: 0,
      position: position('2026-01-02T00:00:05Z', 1),
      notifications: [],
      now: 30,
    });
    await bridge.recordPollOutcome(s.id, { at: 50, error: 'HTTP 503' });
    const failed = (await bridge.getBridgedSource('src'))!;
    assert.equal(failed.lastError, 'HTTP 503');
    assert.equal(failed.lastPollAt, 50);
    assert.equal(failed.generation, 1, 'a failed poll is no commit');
    await bridge.removeBridgedSource('src');
    const re = await bridge.addBridgedSource(source());
    assert.deepEqual(re.position.lists, [], 'no list of the removed Source survives');
    assert.deepEqual(
      await bridge.commitPoll(s.id, {
        generation: 1,
        position: position('x', 1),
        notifications: [note('late')],
        now: 60,
      }),
      [],
      'a poll of a removed Source stores nothing',
    );
    await close(repo);
  });
}
