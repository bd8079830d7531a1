// A subscription request the hub refuses at once (400, WH-4) is answered with the reason, never with
// the callback URL: a subscriber's callback path is its capability, and a reply may end up in a
// proxy's log or a shared terminal. Each row is one way a callback is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hubFor, postForm } from './helpers.js';

const CAPABILITY = 'cap-7f3a9e1d2b4c';
const TOPIC = 'http://source.test/changes';

const ROWS: readonly { covers: string; callback: string | string[] }[] = [
  { covers: 'credentials in the URL', callback: `http://user:pw@mirror.test/cb/${CAPABILITY}` },
  {
    covers: 'a loopback address (private networks not allowed)',
    callback: `http://127.0.0.1:9/cb/${CAPABILITY}`,
  },
  { covers: 'localhost', callback: `http://localhost:9/cb/${CAPABILITY}?k=${CAPABILITY}` },
  { covers: 'not http(s) (WH-6)', callback: `ftp://mirror.test/cb/${CAPABILITY}` },
  { covers: 'a fragment (WH-6)', callback: `http://mirror.test/cb/${CAPABILITY}#${CAPABILITY}` },
  { covers: 'not an absolute URL', callback: `/cb/${CAPABILITY}` },
  {
    covers: 'hub.callback given twice',
    callback: [`http://mirror.test/cb/${CAPABILITY}`, `http://mirror.test/cb2/${CAPABILITY}`],
  },
];

test('WH-4: refused subscription requests answer 400 without repeating the callback URL', async (t) => {
  const { hub } = await hubFor(t, { allowPrivateNetworks: false });
  await hub.addSource('src', ['http://source.test/']);
  for (const row of ROWS) {
    for (const mode of ['subscribe', 'unsubscribe']) {
      const a = await postForm(hub.url, {
        'hub.mode': mode,
        'hub.topic': TOPIC,
        'hub.callback': row.callback,
      });
      assert.equal(a.status, 400, `${row.covers} (${mode}): ${a.text}`);
      assert.ok(a.text.trim().length > 0, `${row.covers}: a reason is given`);
      assert.ok(
        !a.text.includes(CAPABILITY),
        `${row.covers} (${mode}): the reply repeats the callback: ${a.text}`,
      );
    }
  }
});
