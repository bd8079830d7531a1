// Per-origin fairness of verification (WH-3): 200 subscription requests whose callbacks accept the
// verification GET and never answer must not hold up a legitimate subscriber on another origin.
// The outcome asserted: the legitimate subscription became active while the hanging origin had no
// more than its per-origin share of verifications open, and before any of them timed out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  hangingOriginFor,
  hubFor,
  metricValue,
  postForm,
  receiverFor,
  waitFor,
} from './helpers.js';

const TOPIC = 'http://source.test/fair/topic';

test('probe: a legitimate verification is not delayed by 200 verifications that hang on another origin', async (t) => {
  const { hub } = await hubFor(t, { checkTopics: false, requestTimeoutMs: 30_000 });
  const sink = await hangingOriginFor(t);
  for (let i = 0; i < 200; i += 20) {
    await Promise.all(
      Array.from({ length: 20 }, async (_, k) => {
        const a = await postForm(hub.url, {
          'hub.mode': 'subscribe',
          'hub.topic': TOPIC,
          'hub.callback': `${sink.url}/hang/${i + k}`,
        });
        assert.equal(a.status, 202);
      }),
    );
  }
  await waitFor(() => sink.requests() >= 1, 'the hanging origin got its first verification GET');

  const legit = await receiverFor(t);
  const started = Date.now();
  const a = await postForm(hub.url, {
    'hub.mode': 'subscribe',
    'hub.topic': TOPIC,
    'hub.callback': legit.url('/legit'),
  });
  assert.equal(a.status, 202);
  await waitFor(
    async () =>
      (await metricValue(
        hub,
        'rsnotify_hub_verifications_total',
        'mode="subscribe",result="verified"',
      )) === 1,
    'legitimate subscription verified',
    25_000,
  );
  t.diagnostic(
    `legitimate verification done after ${Date.now() - started} ms; the hanging origin had ${sink.requests()} GETs open`,
  );
  assert.equal(legit.verificationsTo('/legit').length, 1);
  // The hanging origin holds only its share, and nothing of it has even timed out yet.
  assert.ok(sink.requests() <= 4, `the hanging origin had ${sink.requests()} verifications open`);
  assert.equal(
    await metricValue(
      hub,
      'rsnotify_hub_verifications_total',
      'mode="subscribe",result="unreachable"',
    ),
    0,
  );
});
