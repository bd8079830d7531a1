// A source entry may name the channel itself (a hub's poll-to-push bridge): hub and topic together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../src/config.js';

const base = {
  dataDir: '/tmp/x',
  sources: [{ name: 's', url: 'http://src.test/', mirrorDir: '/tmp/m' }],
};

test('config: a source may name hub and topic together', () => {
  const cfg = resolveConfig({
    ...base,
    sources: [
      { ...base.sources[0], hub: 'http://hub.test/hub', topic: 'http://hub.test/hub/bridge/s' },
    ],
  });
  assert.equal(cfg.sources[0]!.hub, 'http://hub.test/hub');
  assert.equal(cfg.sources[0]!.topic, 'http://hub.test/hub/bridge/s');
});

test('config: hub without topic (or the reverse) is refused with RSN_CONFIG_INVALID', () => {
  assert.throws(
    () => resolveConfig({ ...base, sources: [{ ...base.sources[0], hub: 'http://hub.test/hub' }] }),
    { code: 'RSN_CONFIG_INVALID', message: /hub and topic go together/ },
  );
  assert.throws(
    () => resolveConfig({ ...base, sources: [{ ...base.sources[0], topic: 'ftp://hub.test/t' }] }),
    { code: 'RSN_CONFIG_INVALID' },
  );
});
