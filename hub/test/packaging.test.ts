// The shipped hub units: hardened like the subscriber's, the SQLite database created owner-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openSqliteRepository } from '../src/store/index.js';

const packaging = fileURLToPath(new URL('../packaging/', import.meta.url));
const HARDENING = [
  'DynamicUser=yes',
  'ProtectSystem=strict',
  'ProtectHome=yes',
  'PrivateTmp=yes',
  'NoNewPrivileges=yes',
  'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX',
  'SystemCallFilter=@system-service',
  'CapabilityBoundingSet=',
  'UMask=0077',
];

for (const unit of ['rsnotify-hub.service', 'rsnotify-hub@.service']) {
  test(`packaging: ${unit} is sandboxed and runs the built CLI`, () => {
    const lines = readFileSync(join(packaging, unit), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const directive of HARDENING)
      assert.ok(lines.includes(directive), `${unit} has ${directive}`);
    const exec = lines.find((l) => l.startsWith('ExecStart='))!;
    assert.match(exec, /^ExecStart=\/usr\/bin\/node \/opt\/rsnotify\/hub\/dist\/cli\.js serve /);
  });
}

test('packaging: the template unit reads the database URL from an EnvironmentFile (the password stays out of the unit)', () => {
  const text = readFileSync(join(packaging, 'rsnotify-hub@.service'), 'utf8');
  assert.match(text, /^EnvironmentFile=\/etc\/rsnotify\/hub\.env$/m);
  assert.match(text, /--port %i/);
  assert.doesNotMatch(text, /^ExecStart=.*postgres:\/\//m);
});

test('SQLite: the database file is created 0600 (it holds subscriber secrets)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rsnotify-hub-mode-'));
  try {
    const file = join(dir, 'hub.db');
    await openSqliteRepository(file).close();
    assert.equal(statSync(file).mode & 0o777, 0o600);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
