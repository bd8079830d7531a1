// RC-1: elements are matched by namespace URI. The reader resolves namespaces itself on top of
// saxes's plain mode (src/xml/namespaces.ts); these tests hold it to the verdicts of saxes's own
// namespace mode, which it replaced, document by document, and table-test the pure resolution.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { DocumentError } from '@rsnotify/shared';
import {
  DeclaredBindings,
  ROOT_BINDINGS,
  XML_NAMESPACE,
  XmlReader,
  resolveTag,
  type XmlTag,
} from '../src/xml/index.js';

interface Seen {
  name: string;
  prefix: string;
  local: string;
  uri: string;
}

type Verdict = { accepted: Seen[] } | { refused: true };

function throughReader(xml: string): Verdict {
  const seen: Seen[] = [];
  const reader = new XmlReader({
    open: (tag: XmlTag) =>
      seen.push({ name: tag.name, prefix: tag.prefix, local: tag.local, uri: tag.uri }),
    close: () => {},
    text: () => {},
  });
  try {
    reader.write(xml);
    reader.close();
    return { accepted: seen };
  } catch (e) {
    assert.ok(e instanceof DocumentError, String(e));
    assert.equal(e.code, 'RS_XML_MALFORMED', e.message);
    return { refused: true };
  }
}

function throughSaxesNamespaceMode(xml: string): Verdict {
  const seen: Seen[] = [];
  const parser = new SaxesParser({ xmlns: true });
  let refused = false;
  parser.on('error', () => {
    refused = true;
  });
  parser.on('opentag', (tag) =>
    seen.push({ name: tag.name, prefix: tag.prefix, local: tag.local, uri: tag.uri }),
  );
  parser.write(xml);
  parser.close();
  return refused ? { refused: true } : { accepted: seen };
}

const DOCUMENTS: readonly (readonly [string, string])[] = [
  ['default namespace', '<a xmlns="urn:a"><b/></a>'],
  ['prefixed root and children', '<p:a xmlns:p="urn:p"><p:b/><c/></p:a>'],
  ['a prefix bound on the element that uses it', '<a><p:b xmlns:p="urn:p" p:x="1"/></a>'],
  ['a prefix rebound in a child', '<p:a xmlns:p="urn:1"><p:b xmlns:p="urn:2"/><p:c/></p:a>'],
  ['the default namespace undeclared in a child', '<a xmlns="urn:a"><b xmlns=""><c/></b><d/></a>'],
  [
    'two prefixes, one URI, different locals',
    '<a xmlns:p="urn:u" xmlns:q="urn:u" p:x="1" q:y="2"/>',
  ],
  ['the same local under two URIs', '<a xmlns:p="urn:1" xmlns:q="urn:2" p:x="1" q:x="2"/>'],
  ['xml:lang needs no declaration', '<a xml:lang="en"><xml:b/></a>'],
  ['xml bound to its own namespace', `<a xmlns:xml="${XML_NAMESPACE}"/>`],
  ['a namespace URI with spaces around it', '<a xmlns="  urn:a  "><b/></a>'],
  [
    'XML 1.1 may undeclare a prefix',
    '<?xml version="1.1"?><p:a xmlns:p="urn:p"><b xmlns:p=""/></p:a>',
  ],
  ['an unbound element prefix', '<p:a/>'],
  ['an unbound attribute prefix', '<a p:x="1"/>'],
  ['a prefix out of scope', '<a><b xmlns:p="urn:p"/><p:c/></a>'],
  ['XML 1.0 may not undeclare a prefix', '<a xmlns:p="urn:p"><b xmlns:p=""/></a>'],
  [
    'a prefix used after its XML 1.1 undeclaration',
    '<?xml version="1.1"?><a xmlns:p="urn:p"><p:b xmlns:p=""/></a>',
  ],
  [
    'one attribute twice under two prefixes',
    '<a xmlns:p="urn:u" xmlns:q="urn:u" p:x="1" q:x="2"/>',
  ],
  ['xml bound elsewhere', '<a xmlns:xml="urn:x"/>'],
  ['another prefix for the xml namespace', `<a xmlns:x="${XML_NAMESPACE}"/>`],
  ['the xml namespace as default', `<a xmlns="${XML_NAMESPACE}"/>`],
  ['the xmlns namespace bound', '<a xmlns:x="http://www.w3.org/2000/xmlns/"/>'],
  ['the xmlns namespace as default', '<a xmlns="http://www.w3.org/2000/xmlns/"/>'],
  ['xmlns declared as a prefix', '<a xmlns:xmlns="urn:x"/>'],
  ['xmlns as an element prefix', '<xmlns:a/>'],
  ['two colons in an element name', '<a xmlns:p="urn:p"><p:b:c/></a>'],
  ['an empty local name', '<a xmlns:p="urn:p" p:="1"/>'],
  ['a name starting with a colon', '<a :x="1"/>'],
  ['a colon in a processing instruction target', '<a><?p:q data?></a>'],
];

for (const [what, xml] of DOCUMENTS) {
  test(`RC-1: namespaces as saxes's namespace mode reads them: ${what}`, () => {
    const expected = throughSaxesNamespaceMode(xml);
    assert.deepEqual(throughReader(xml), expected);
  });
}

test('RC-1: the table covers both verdicts', () => {
  const verdicts = DOCUMENTS.map(([, xml]) => 'refused' in throughSaxesNamespaceMode(xml));
  assert.ok(verdicts.includes(true) && verdicts.includes(false));
});

const attrs = (record: Record<string, string>) =>
  Object.entries(record).map(([name, value]) => ({ name, value }));

test('resolveTag: bindings are shared until an element declares one', () => {
  const root = resolveTag('p:a', attrs({ 'xmlns:p': 'urn:p', id: '1' }), ROOT_BINDINGS, false);
  assert.ok(typeof root !== 'string');
  assert.deepEqual([root.prefix, root.local, root.uri], ['p', 'a', 'urn:p']);
  assert.notEqual(root.bindings, ROOT_BINDINGS);
  assert.equal(ROOT_BINDINGS.get('p'), undefined, 'the parent scope is not changed');
  const child = resolveTag('b', attrs({ 'p:x': '1' }), root.bindings, false);
  assert.ok(typeof child !== 'string');
  assert.equal(child.bindings, root.bindings);
  assert.deepEqual([child.prefix, child.local, child.uri], ['', 'b', '']);
  assert.deepEqual(child.attributes, [{ name: 'p:x', value: '1' }]);
});

test('resolveTag: each refusal names its reason', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['p:a', {}, /unbound namespace prefix: "p"/],
    ['a', { 'q:x': '1' }, /unbound namespace prefix: "q"/],
    ['a', { 'xmlns:p': '' }, /undefine prefix in XML 1\.0/],
    ['xmlns:a', {}, /may not have "xmlns" as prefix/],
    ['a:b:c', {}, /malformed name: a:b:c/],
    [
      'a',
      { 'xmlns:p': 'urn:u', 'xmlns:q': 'urn:u', 'p:x': '1', 'q:x': '2' },
      /duplicate attribute: \{urn:u\}x/,
    ],
  ];
  for (const [name, attributes, reason] of cases) {
    const verdict = resolveTag(name, attrs(attributes), ROOT_BINDINGS, false);
    assert.equal(typeof verdict, 'string', name);
    assert.match(verdict as string, reason);
  }
});

test('resolveTag: a declaring element keeps only its own declarations; lookups walk its ancestors', () => {
  // Copying the parent's bindings made nested declarations quadratic (a 1 MiB document: 55 s).
  const many: Record<string, string> = { xmlns: 'urn:default' };
  for (let k = 0; k < 63; k++) many[`xmlns:p${k}`] = `urn:p${k}`;
  const root = resolveTag('a', attrs(many), ROOT_BINDINGS, false);
  assert.ok(typeof root !== 'string');
  const child = resolveTag(
    'p3:b',
    attrs({ 'xmlns:q': 'urn:q', 'xmlns:p5': 'urn:new' }),
    root.bindings,
    false,
  );
  assert.ok(typeof child !== 'string');
  assert.ok(child.bindings instanceof DeclaredBindings);
  assert.deepEqual(
    [...child.bindings.own],
    [
      ['q', 'urn:q'],
      ['p5', 'urn:new'],
    ],
  );
  assert.equal(child.uri, 'urn:p3', "an ancestor's declaration");
  assert.equal(child.bindings.get('p5'), 'urn:new', "its own declaration shadows the ancestor's");
  assert.equal(child.bindings.get(''), 'urn:default');
  assert.equal(child.bindings.get('xml'), XML_NAMESPACE);
  assert.equal(child.bindings.get('nope'), undefined);
  const undeclared = resolveTag('c', attrs({ xmlns: '' }), child.bindings, false);
  assert.ok(typeof undeclared !== 'string');
  assert.equal(undeclared.uri, '', 'the default namespace undeclared');
  assert.equal(root.bindings.get('q'), undefined, "a parent never sees a child's declarations");
});
