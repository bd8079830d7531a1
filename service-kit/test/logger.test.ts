// The shared logger factory: the message policy, the redaction both daemons rely on, and the
// README list reader the packages' log-event tests use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createEventLogger } from '../src/index.js';
import { readmeLogEvents } from '../src/testing/index.js';

interface Events {
  'thing.done': { uri: string; count?: number | undefined };
  'thing.failed': { callback: string; secret?: string | undefined };
}

function capture(): { sink: Writable; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { sink, lines };
}

test('logger: an event without a sentence gets its name as message; a sentence is kept', () => {
  const { sink, lines } = capture();
  const log = createEventLogger<Events>({
    service: 'svc',
    level: 'debug',
    destination: sink as never,
  });
  log.info({ event: 'thing.done', uri: 'https://a.example/x' });
  log.debug({ event: 'thing.done', uri: 'https://a.example/y', count: 2 }, 'did the thing');
  assert.deepEqual(
    lines.map((l) => [l.event, l.msg, l.service, l.uri]),
    [
      ['thing.done', 'thing.done', 'svc', 'https://a.example/x'],
      ['thing.done', 'did the thing', 'svc', 'https://a.example/y'],
    ],
  );
  assert.match(String(lines[0]!.time), /^\d{4}-\d\d-\d\dT/);
});

test('logger: secrets are censored and a callback shows only origin and path hash', () => {
  const { sink, lines } = capture();
  const log = createEventLogger<Events>({
    service: 'svc',
    destination: sink as never,
    redact: ['extraSecret'],
  });
  log.warn({ event: 'thing.failed', callback: 'https://m.example/cb/CAPABILITY', secret: 'k' });
  log.warn({ event: 'thing.failed', callback: 'x', extraSecret: 'zzz' } as never);
  const text = JSON.stringify(lines);
  assert.ok(!text.includes('CAPABILITY') && !text.includes('"k"') && !text.includes('zzz'), text);
  assert.match(String(lines[0]!.callback), /^https:\/\/m\.example\/\[path:[0-9a-f]{12}\]$/);
  assert.equal(lines[0]!.secret, '[redacted]');
});

test('readmeLogEvents: reads the list items under the section, not the prose', () => {
  const readme = [
    '## Other',
    '### Log events',
    '- a: `other.event`',
    '## The thing',
    'Prose with `area.what` in it.',
    '### Log events',
    'The policy: `not.listed`.',
    '- thing: `thing.done` (debug),',
    '  `thing.failed`',
    '',
    'After the list: `also.not_listed`.',
    '### Next',
    '- `next.event`',
  ].join('\n');
  assert.deepEqual(readmeLogEvents(readme, 'The thing'), ['thing.done', 'thing.failed']);
  assert.deepEqual(readmeLogEvents(readme, 'Missing'), []);
});
