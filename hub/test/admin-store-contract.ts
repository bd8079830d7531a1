// The console's AdminStore contract, run unchanged against both engines (admin-store.test.ts):
// tokens by hash, sessions that end with their token, the rejection log, token rotation, delivery
// rows with given-up counts, and cluster counters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminStore } from '../src/admin/store.js';
import type { HubRepository } from '../src/store/index.js';
import { hasLeaseLapsed } from '../src/subscriptions/index.js';

export interface AdminFixture {
  readonly repo: HubRepository;
  readonly admin: AdminStore;
  close(): Promise<void>;
}

export function runAdminStoreContract(
  engine: string,
  open: () => Promise<AdminFixture>,
  skip: string | false = false,
): void {
  test(
    `${engine} admin store: tokens by hash, unique names, sessions end with expiry and revocation`,
    { skip },
    async () => {
      const f = await open();
      try {
        const t = await f.admin.addAdminToken({ name: 'ops', tokenHash: 'h1', now: 1 });
        assert.equal((await f.admin.findAdminTokenByHash('h1'))?.name, 'ops');
        assert.equal(await f.admin.findAdminTokenByHash('nope'), undefined);
        await assert.rejects(f.admin.addAdminToken({ name: 'ops', tokenHash: 'h2', now: 2 }), {
          code: 'RSN_ADMIN_TOKEN_EXISTS',
        });
        await f.admin.touchAdminToken(t.id, 50);
        assert.equal((await f.admin.listAdminTokens())[0]!.lastUsedAt, 50);
        await f.admin.createSession({
          sessionHash: 's1',
          adminTokenId: t.id,
          now: 100,
          expiresAt: 200,
        });
        assert.equal((await f.admin.findSession('s1', 150))?.name, 'ops');
        assert.equal(await f.admin.findSession('s1', 200), undefined, 'expired');
        await f.admin.createSession({
          sessionHash: 's2',
          adminTokenId: t.id,
          now: 100,
          expiresAt: 10_000,
        });
        await f.admin.deleteSession('s2');
        assert.equal(await f.admin.findSession('s2', 150), undefined, 'logged out');
        await f.admin.createSession({
          sessionHash: 's3',
          adminTokenId: t.id,
          now: 100,
          expiresAt: 10_000,
        });
        assert.equal(await f.admin.revokeAdminToken('ops'), true);
        assert.equal(
          await f.admin.findSession('s3', 150),
          undefined,
          'revoking the token ends its sessions',
        );
        assert.equal(await f.admin.revokeAdminToken('ops'), false);
      } finally {
        await f.close();
      }
    },
  );

  test(
    `${engine} admin store: rejections newest first; rotation; deliveries, given-up and counters`,
    { skip },
    async () => {
      const f = await open();
      try {
        for (let i = 1; i <= 3; i++)
          await f.admin.recordRejection({
            at: 1_000 + i,
            status: 400 + i,
            kind: 'notification',
            reason: `r${i}`,
          });
        assert.deepEqual(
          (await f.admin.recentRejections(2)).map((r) => r.reason),
          ['r3', 'r2'],
        );

        await f.repo.addSource({
          name: 'src',
          tokenHash: 'old',
          topicPrefixes: ['http://t.test/'],
          callbackPrefixes: [],
          now: 1,
        });
        assert.equal(await f.admin.setSourceTokenHash('src', 'new'), true);
        assert.equal((await f.repo.listSources())[0]!.tokenHash, 'new');
        assert.equal(await f.admin.setSourceTokenHash('nope', 'x'), false);

        const now = 10_000;
        const sub = await f.repo.activateSubscription({
          topicUrl: 'http://t.test/a',
          topicAsGiven: 'http://t.test/a',
          callback: 'http://cb.test/x',
          secret: 's',
          algorithm: 'sha256',
          leaseSeconds: 600,
          leaseExpiresAt: now + 600_000,
          now,
          hasLapsed: hasLeaseLapsed,
        });
        const n = await f.repo.appendNotification({
          topicUrl: 'http://t.test/a',
          receivedAt: now,
          contentType: 'application/xml',
          linkHeader: '<x>',
          body: Buffer.from('b'),
        });
        await f.repo.saveCursors(
          [
            {
              subscriptionId: sub.id,
              deliveredSeq: n.seq,
              attempts: 0,
              nextAttemptAt: 0,
              firstFailedAt: undefined,
              lastStatus: 500,
              lastError: undefined,
              givenUp: {
                seq: n.seq,
                reason: 'too old',
                topicId: n.topicId,
                callback: sub.callback,
              },
            },
          ],
          now,
        );
        await f.repo.appendNotification({
          topicUrl: 'http://t.test/a',
          receivedAt: now + 1,
          contentType: 'application/xml',
          linkHeader: '<x>',
          body: Buffer.from('c'),
        });
        const row = (await f.admin.subscriptionDeliveries())[0]!;
        assert.equal(row.id, sub.id);
        assert.equal(row.topicUrl, 'http://t.test/a');
        assert.equal(row.signed, true);
        assert.equal(row.deliveredSeq, 1);
        assert.equal(row.topicLastSeq, 2);
        assert.equal(row.givenUp, 1);
        assert.deepEqual(await f.admin.subscriptionDelivery(sub.id), row);
        const given = await f.admin.listGivenUp(sub.id);
        assert.deepEqual(
          given.map((g) => [g.seq, g.topicId, g.reason]),
          [[1, n.topicId, 'too old']],
        );
        const topics = await f.admin.topicStats(now + 10, 60_000);
        assert.deepEqual(
          topics.map((t) => [t.url, t.lastSeq, t.subscribers, t.recentNotifications]),
          [['http://t.test/a', 2, 1, 2]],
        );
        const c = await f.admin.counters(now + 10);
        assert.deepEqual(
          { ...c, rejectionsLastHour: 0 },
          {
            activeSubscriptions: 1,
            pendingIntents: 0,
            queueDepth: 1,
            givenUp: 1,
            notificationsLastMinute: 2,
            rejectionsLastHour: 0,
          },
        );
        await f.admin.deleteGivenUp(given[0]!.id);
        assert.equal((await f.admin.subscriptionDelivery(sub.id))!.givenUp, 0);
        assert.equal(await f.admin.deleteSubscription(sub.id), true);
        assert.equal(await f.admin.subscriptionDelivery(sub.id), undefined);
        assert.equal(await f.admin.deleteSubscription(sub.id), false);
      } finally {
        await f.close();
      }
    },
  );
}
