// The hub's log events: the README's list and the declared union (log-events.ts) name the same
// events, every declared event is still logged by the code, and the logger refuses others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { readmeLogEvents } from '@rsnotify/service-kit/testing';
import { createLogger, HUB_LOG_EVENTS } from '../src/observability/index.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const src = join(root, 'hub/src');

async function sourceTexts(dir: string): Promise<string> {
  const parts: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name.endsWith('.ts') && e.name !== 'log-events.ts')
      parts.push(await readFile(join(e.parentPath, e.name), 'utf8'));
  }
  return parts.join('\n');
}

test('hub log events: the README lists exactly the declared events', async () => {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const listed = readmeLogEvents(readme, 'The hub (`rsnotify-hub`)');
  assert.ok(listed.length > 0, 'README: no "### Log events" list in the hub section');
  assert.equal(new Set(listed).size, listed.length, 'an event is listed twice');
  assert.deepEqual([...listed].sort(), [...HUB_LOG_EVENTS].sort());
});

test('hub log events: every declared event is logged somewhere; names are area.what', async () => {
  const code = await sourceTexts(src);
  // The breaker events are built from the state name (origin-budget.ts).
  const built = /`delivery\.origin_breaker_\$\{/.test(code)
    ? [
        'delivery.origin_breaker_open',
        'delivery.origin_breaker_half_open',
        'delivery.origin_breaker_closed',
      ]
    : [];
  for (const name of HUB_LOG_EVENTS) {
    assert.match(name, /^[a-z]+(_[a-z]+)*\.[a-z]+(_[a-z]+)*$/, name);
    assert.ok(
      code.includes(`'${name}'`) || built.includes(name),
      `${name} is declared but never logged`,
    );
  }
});

test('hub logger: the message policy and the type of a line', () => {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  const logger = createLogger('info', sink as never);
  logger.info({ event: 'hub.stopped', url: 'http://127.0.0.1:1/hub' });
  logger.info({ event: 'hub.stopped', url: 'http://127.0.0.1:1/hub' }, 'hub stopped');
  // @ts-expect-error an event the hub does not declare is refused by the compiler
  logger.info({ event: 'hub.exploded', url: 'x' });
  // @ts-expect-error a field outside the event's field set is refused
  logger.info({ event: 'hub.stopped', url: 'x', extra: 1 });
  assert.equal(lines[0]!.event, 'hub.stopped');
  assert.equal(lines[0]!.msg, 'hub.stopped', 'no sentence: the event name is the message');
  assert.equal(lines[0]!.service, 'rsnotify-hub');
  assert.equal(lines[1]!.msg, 'hub stopped');
});
