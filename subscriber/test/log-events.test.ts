// The subscriber's log events: the README's list and the declared union (log-events.ts) name the same
// events, every declared event is still logged by the code, and the logger refuses others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { readmeLogEvents } from '@rsnotify/service-kit/testing';
import { createLogger, SUBSCRIBER_LOG_EVENTS } from '../src/observability/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'subscriber/src');

async function sourceTexts(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts') && e.name !== 'log-events.ts')
      parts.push(await readFile(join(e.parentPath, e.name), 'utf8'));
  }
  return parts.join('\n');
}

test('subscriber log events: the README lists exactly the declared events', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const listed = readmeLogEvents(readme, 'The subscriber (`rsnotify-subscriber`)');
  assert.ok(listed.length > 0, 'README: no "### Log events" list in the subscriber section');
  assert.equal(new Set(listed).size, listed.length, 'an event is listed twice');
  assert.deepEqual([...listed].sort(), [...SUBSCRIBER_LOG_EVENTS].sort());
});

test('subscriber log events: every declared event is logged somewhere; names are area.what', async () => {
  const code = await sourceTexts(src);
  const built: string[] = [];
  for (const name of SUBSCRIBER_LOG_EVENTS) {
    assert.match(name, /^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/, name);
    assert.ok(
      code.includes(`'${name}'`) || built.includes(name),
      `${name} is declared but never logged`,
    );
  }
});

test('subscriber logger: the message policy, redaction and the type of a line', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('info', sink as never).child({ source: 'ds1' });
  logger.info({ event: 'subscriber.stopping', signal: 'SIGTERM' });
  // @ts-expect-error an event the subscriber does not declare is refused by the compiler
  logger.info({ event: 'subscriber.exploded' });
  logger.warn(
    // a careless caller: fields no event declares, holding secrets
    { event: 'subscriber.stopping', signal: 'x', callbackToken: 'tok-123', secret: 's3' } as never,
  );
  assert.equal(lines[0]!.event, 'subscriber.stopping');
  assert.equal(lines[0]!.msg, 'subscriber.stopping');
  assert.equal(lines[0]!.source, 'ds1');
  assert.equal(lines[0]!.service, 'rsnotify-subscriber');
  const careless = JSON.stringify(lines[2]);
  assert.ok(!careless.includes('tok-123') && !careless.includes('s3"'), careless);
});
