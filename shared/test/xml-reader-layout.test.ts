// The reader's saxes parser must stay a fast-properties object in V8: on a dictionary-mode parser
// every character costs about 3x (see ReaderParser in src/xml/safe-parse.ts). V8's own check
// (%HasFastProperties) runs in a child started with --allow-natives-syntax.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const xmlIndex = fileURLToPath(new URL('../src/xml/index.ts', import.meta.url));

const CHILD = `
const { XmlReader } = await import(${JSON.stringify(xmlIndex)});
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)');
const verdicts = [];
for (let i = 0; i < 20; i++) {
  const reader = new XmlReader({ open() {}, close() {}, text() {} });
  reader.write('<?xml version="1.0"?><a xmlns="urn:a" x="1">t<?p q?><![CDATA[c]]><b y="2"/></a>');
  reader.close();
  verdicts.push(hasFastProperties(reader.parser));
}
process.stdout.write(JSON.stringify(verdicts));
`;

test('XmlReader: its parser keeps fast properties with every handler set', () => {
  const out = execFileSync(
    process.execPath,
    [...process.execArgv, '--allow-natives-syntax', '--input-type=module', '--eval', CHILD],
    { encoding: 'utf8' },
  );
  const verdicts = JSON.parse(out) as boolean[];
  assert.equal(verdicts.length, 20);
  assert.ok(verdicts.every(Boolean), `fast properties per reader: ${out}`);
});
