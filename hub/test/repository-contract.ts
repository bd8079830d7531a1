// The store contract every engine must keep (today SQLite; a PostgreSQL engine would run the same
// suite). Exported as a function so each engine's test file calls it with its own `open`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HubRepository } from '../src/store/index.js';
import { hasLeaseLapsed } from '../src/subscriptions/index.js';

const body = (s: string) => Buffer.from(s);
const note = (topicUrl: string, tag: string, receivedAt = 1_000) => ({
  topicUrl,
  receivedAt,
  contentType: 'application/xml',
  linkHeader: `<${topicUrl}>; rel="self"`,
  body: body(tag),
});
const activation = (
  topicUrl: string,
  callback: string,
  now: number,
  extra: Partial<{ secret: string; leaseExpiresAt: number }> = {},
) => ({
  topicUrl,
  topicAsGiven: topicUrl,
  callback,
  secret: extra.secret,
  algorithm: 'sha256' as const,
  leaseSeconds: 60,
  leaseExpiresAt: extra.leaseExpiresAt ?? now + 60_000,
  hasLapsed: hasLeaseLapsed,
  now,
});

export function runRepositoryContract(
  engine: string,
  open: () => Promise<{ repo: HubRepository; reopen: () => Promise<HubRepository> }>,
): void {
  test(`${engine}: M-3, M-5: seq = last_seq + 1 per topic, in arrival order, also when publishes are group-committed`, async () => {
    const { repo } = await open();
    const results = await Promise.all(
      ['a1', 'a2', 'a3'].map((tag) => repo.appendNotification(note('http://t/a', tag))),
    );
    assert.deepEqual(
      results.map((r) => r.seq),
      [1, 2, 3],
    );
    const b = await repo.appendNotification(note('http://t/b', 'b1'));
    assert.equal(b.seq, 1, 'each topic has its own sequence');
    const n2 = await repo.getNotification(results[1]!.topicId, 2);
    assert.equal(n2?.body.toString(), 'a2');
    assert.equal(n2?.linkHeader, '<http://t/a>; rel="self"');
    // Two topics interleaved in one turn (one batch where publishes are group-committed).
    const mixed = [
      ['http://t/a', 'a4'],
      ['http://t/b', 'b2'],
      ['http://t/a', 'a5'],
      ['http://t/c', 'c1'],
      ['http://t/b', 'b3'],
      ['http://t/a', 'a6'],
    ] as const;
    const stored = await Promise.all(
      mixed.map(([topic, tag]) => repo.appendNotification(note(topic, tag))),
    );
    assert.deepEqual(
      stored.map((r) => r.seq),
      [4, 2, 5, 1, 3, 6],
    );
    for (const [i, [, tag]] of mixed.entries()) {
      const got = await repo.getNotification(stored[i]!.topicId, stored[i]!.seq);
      assert.equal(got?.body.toString(), tag);
    }
    assert.deepEqual((await repo.listTopics()).map((t) => [t.url, t.lastSeq]).sort(), [
      ['http://t/a', 6],
      ['http://t/b', 3],
      ['http://t/c', 1],
    ]);
    await repo.close();
  });

  test(`${engine}: WH-9: a new subscription starts at the topic end; a verified re-subscription keeps its cursor and replaces the secret`, async () => {
    const { repo } = await open();
    await repo.appendNotification(note('http://t/a', 'x'));
    await repo.appendNotification(note('http://t/a', 'y'));
    const s = await repo.activateSubscription(
      activation('http://t/a', 'http://cb/1', 10_000, { secret: 'one' }),
    );
    assert.equal(s.deliveredSeq, 2);
    await repo.saveCursors(
      [
        {
          subscriptionId: s.id,
          deliveredSeq: 1,
          attempts: 0,
          nextAttemptAt: 0,
          firstFailedAt: undefined,
          lastStatus: 200,
          lastError: undefined,
        },
      ],
      10_001,
    );
    assert.equal(
      (await repo.listSubscriptions())[0]!.deliveredSeq,
      2,
      'a cursor never moves backwards',
    );
    await repo.appendNotification(note('http://t/a', 'z'));
    const again = await repo.activateSubscription(activation('http://t/a', 'http://cb/1', 11_000));
    assert.equal(again.id, s.id, 'one subscription per (topic, callback)');
    assert.equal(again.deliveredSeq, 2);
    assert.equal(again.secret, undefined, 're-subscribing without a secret drops it');
    await repo.close();
  });

  test(`${engine}: WH-13: a renewal after the lease lapsed restarts at the topic end; expired rows are swept`, async () => {
    const { repo } = await open();
    await repo.appendNotification(note('http://t/a', 'x'));
    const s = await repo.activateSubscription(
      activation('http://t/a', 'http://cb/1', 1_000, { leaseExpiresAt: 2_000 }),
    );
    await repo.appendNotification(note('http://t/a', 'while-lapsed'));
    assert.deepEqual(await repo.countSubscriptions(3_000), { active: 0, expired: 1, pending: 0 });
    const renewed = await repo.activateSubscription(activation('http://t/a', 'http://cb/1', 3_000));
    assert.equal(renewed.id, s.id);
    assert.equal(renewed.deliveredSeq, 2);
    await repo.activateSubscription(
      activation('http://t/a', 'http://cb/2', 3_000, { leaseExpiresAt: 3_500 }),
    );
    const swept = await repo.removeExpiredSubscriptions(4_000);
    assert.deepEqual(
      swept.map((x) => x.callback),
      ['http://cb/2'],
    );
    assert.equal(swept[0]!.topicUrl, 'http://t/a');
    await repo.close();
  });

  test(`${engine}: promise 1: given-up notifications are recorded with the cursor move`, async () => {
    const { repo } = await open();
    const s = await repo.activateSubscription(activation('http://t/a', 'http://cb/1', 1_000));
    await repo.appendNotification(note('http://t/a', 'x'));
    await repo.saveCursors(
      [
        {
          subscriptionId: s.id,
          deliveredSeq: 1,
          attempts: 0,
          nextAttemptAt: 0,
          firstFailedAt: undefined,
          lastStatus: 500,
          lastError: undefined,
          givenUp: {
            seq: 1,
            reason: 'retry age exceeded',
            topicId: s.topicId,
            callback: s.callback,
          },
        },
      ],
      2_000,
    );
    assert.equal(await repo.countGivenUp(), 1);
    assert.equal((await repo.listSubscriptions())[0]!.deliveredSeq, 1);
    await repo.close();
  });

  test(`${engine}: M-5: pruning keeps every notification some cursor has not passed`, async () => {
    const { repo } = await open();
    const s1 = await repo.activateSubscription(activation('http://t/a', 'http://cb/1', 0));
    await repo.activateSubscription(activation('http://t/a', 'http://cb/2', 0));
    for (const tag of ['1', '2', '3']) await repo.appendNotification(note('http://t/a', tag, 100));
    await repo.appendNotification(note('http://t/lonely', 'nobody listens', 100));
    await repo.saveCursors(
      [
        {
          subscriptionId: s1.id,
          deliveredSeq: 3,
          attempts: 0,
          nextAttemptAt: 0,
          firstFailedAt: undefined,
          lastStatus: 200,
          lastError: undefined,
        },
      ],
      200,
    );
    assert.equal(await repo.pruneNotifications(50), 0, 'nothing older than the replay window');
    assert.equal(
      await repo.pruneNotifications(1_000),
      1,
      "only the unsubscribed topic's notification goes; cb/2 still needs 1..3",
    );
    const topicId = (await repo.listTopics()).find((t) => t.url === 'http://t/a')!.id;
    assert.ok(await repo.getNotification(topicId, 1));
    await repo.close();
  });

  test(`${engine}: M-3, M-5: a topic whose notifications were all pruned goes on counting from its end, after a restart too`, async () => {
    const { repo, reopen } = await open();
    for (const tag of ['1', '2', '3'])
      await repo.appendNotification(note('http://t/gone', tag, 100));
    assert.equal(await repo.pruneNotifications(1_000), 3, 'no subscription: all three go');
    assert.deepEqual(
      (await repo.listTopics()).map((t) => [t.url, t.lastSeq]),
      [['http://t/gone', 3]],
    );
    assert.equal((await repo.appendNotification(note('http://t/gone', '4', 2_000))).seq, 4);
    assert.equal(await repo.pruneNotifications(3_000), 1);
    await repo.close();
    const again = await reopen();
    assert.deepEqual(
      (await again.listTopics()).map((t) => [t.url, t.lastSeq]),
      [['http://t/gone', 4]],
    );
    const s = await again.activateSubscription(activation('http://t/gone', 'http://cb/late', 0));
    assert.equal(s.deliveredSeq, 4, 'a new subscription starts at the end, not at what is left');
    assert.equal((await again.appendNotification(note('http://t/gone', '5', 4_000))).seq, 5);
    await again.close();
  });

  test(`${engine}: M-4, M-5: a body of several MiB reads back byte for byte among small ones, and is pruned`, async () => {
    const { repo } = await open();
    // Not a multiple of any part size, and every byte position distinguishable.
    const big = Buffer.alloc(2 * 1024 * 1024 + 123_457, 0);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7 + (i >> 11)) % 251;
    await repo.appendNotification(note('http://t/big', 'before', 100));
    const stored = await repo.appendNotification({ ...note('http://t/big', '', 100), body: big });
    await repo.appendNotification(note('http://t/big', 'after', 100));
    assert.equal(stored.seq, 2);
    const read = await repo.getNotification(stored.topicId, 2);
    assert.equal(read?.body.length, big.length);
    assert.ok(read?.body.equals(big), 'the stored bytes are the appended ones');
    assert.equal((await repo.getNotification(stored.topicId, 3))?.body.toString(), 'after');
    assert.equal(await repo.pruneNotifications(1_000), 3, 'no subscription: all three go');
    await repo.close();
  });

  test(`${engine}: M-3: small and large bodies published in one turn keep their order and bytes`, async () => {
    const { repo } = await open();
    // One group-commit batch: the large body takes its own insert, the small ones share one.
    const big = Buffer.alloc(300_000);
    for (let i = 0; i < big.length; i++) big[i] = i % 253;
    const stored = await Promise.all([
      repo.appendNotification(note('http://t/mix', 'first', 100)),
      repo.appendNotification({ ...note('http://t/mix', '', 100), body: big }),
      repo.appendNotification(note('http://t/mix', 'third', 100)),
    ]);
    assert.deepEqual(
      stored.map((s) => s.seq),
      [1, 2, 3],
    );
    const topicId = stored[0]!.topicId;
    assert.equal((await repo.getNotification(topicId, 1))?.body.toString(), 'first');
    assert.ok((await repo.getNotification(topicId, 2))?.body.equals(big));
    assert.equal((await repo.getNotification(topicId, 3))?.body.toString(), 'third');
    await repo.close();
  });

  test(`${engine}: WH-3, WH-9: intents persist, the newest request for a pair supersedes older pending ones`, async () => {
    const { repo, reopen } = await open();
    const base = {
      topicUrl: 'http://t/a',
      topicAsGiven: 'http://t/a',
      callback: 'http://cb/1',
      secret: undefined,
      leaseSeconds: 60,
      reason: undefined,
      createdAt: 0,
    };
    await repo.addIntent({ ...base, mode: 'subscribe', nextAttemptAt: 10 });
    const newest = await repo.addIntent({ ...base, mode: 'unsubscribe', nextAttemptAt: 10 });
    await repo.addIntent({
      ...base,
      callback: 'http://cb/2',
      mode: 'subscribe',
      nextAttemptAt: 50,
    });
    await repo.close();
    const again = await reopen();
    const due = await again.dueIntents(20, 10);
    assert.deepEqual(
      due.map((i) => [i.id, i.mode]),
      [[newest.id, 'unsubscribe']],
    );
    assert.equal(await again.nextIntentDueAt(), 10);
    await again.rescheduleIntent(newest.id, 1, 100);
    assert.equal(await again.nextIntentDueAt(), 50);
    await again.deleteIntent(newest.id);
    assert.equal((await again.countSubscriptions(0)).pending, 1);
    await again.close();
  });

  test(`${engine}: RT-5: Sources with prefixes; a name or a prefix cannot be taken twice; removal cascades`, async () => {
    const { repo } = await open();
    await repo.addSource({
      name: 'one',
      tokenHash: 'aa',
      topicPrefixes: ['http://a/'],
      callbackPrefixes: ['https://cb/'],
      now: 0,
    });
    await assert.rejects(
      repo.addSource({
        name: 'one',
        tokenHash: 'bb',
        topicPrefixes: ['http://b/'],
        callbackPrefixes: [],
        now: 0,
      }),
      { code: 'RSN_SOURCE_EXISTS' },
    );
    await assert.rejects(
      repo.addSource({
        name: 'two',
        tokenHash: 'bb',
        topicPrefixes: ['http://a/'],
        callbackPrefixes: [],
        now: 0,
      }),
      { code: 'RSN_PREFIX_TAKEN' },
    );
    const [s] = await repo.listSources();
    assert.deepEqual(
      [s!.name, s!.topicPrefixes, s!.callbackPrefixes],
      ['one', ['http://a/'], ['https://cb/']],
    );
    assert.equal(await repo.removeSource('one'), true);
    assert.equal(await repo.removeSource('one'), false);
    await repo.addSource({
      name: 'two',
      tokenHash: 'bb',
      topicPrefixes: ['http://a/'],
      callbackPrefixes: [],
      now: 0,
    });
    await repo.close();
  });
}
