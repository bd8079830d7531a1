// Every error code of @rsnotify/shared, pinned (the code is the contract: undici's test/errors.js
// habit). Each row builds the error the way the library does and checks class, name and code; a
// scan of the sources makes sure no code exists that this table does not pin.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DateTimeError,
  DiscoveryError,
  DocumentError,
  OutboundAddressError,
  OutboundUrlError,
  RsnotifyError,
  checkOutboundUrl,
  describeError,
  isRsnotifyError,
  parseChangeNotification,
  parseDateTime,
  parseDocument,
  SHARED_ERRORS,
  XmlLimitError,
} from '@rsnotify/shared';

// Raw on purpose: each row builds its error from hand-written (mostly malformed) bytes.
const URLSET =
  '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/">';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  assert.fail('expected a throw');
}

const TABLE: {
  code: string;
  name: string;
  cls: new (...args: never[]) => RsnotifyError;
  make: () => unknown;
}[] = [
  {
    code: 'RS_XML_MALFORMED',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument('<urlset')),
  },
  {
    code: 'RS_DOCTYPE_FORBIDDEN',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument('<!DOCTYPE x><x/>')),
  },
  {
    code: 'RS_TOO_LARGE',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument(`${URLSET}</urlset>`, { maxBytes: 10 })),
  },
  {
    code: 'RS_UNKNOWN_ROOT',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument('<rss/>')),
  },
  {
    code: 'RS_MISSING_ELEMENT',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument(`${URLSET}<url/></urlset>`)),
  },
  {
    code: 'RS_BAD_ATTRIBUTE',
    name: 'DocumentError',
    cls: DocumentError,
    make: () =>
      thrown(() => parseDocument(`${URLSET}<url><loc>a</loc><rs:md change="x"/></url></urlset>`)),
  },
  {
    code: 'RS_BAD_DATETIME',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument(`${URLSET}<rs:md at="x"/></urlset>`)),
  },
  {
    code: 'RS_NOTIFICATION_INVALID',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseChangeNotification(`${URLSET}</urlset>`)),
  },
  {
    code: 'RS_XML_NOT_UTF8',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument(Buffer.from([0x3c, 0xff]))),
  },
  {
    code: 'RS_NAMESPACE_MISSING',
    name: 'DocumentError',
    cls: DocumentError,
    make: () => thrown(() => parseDocument('<urlset/>')),
  },
  {
    code: 'RS_XML_TOO_DEEP',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() => parseDocument(`${URLSET}<a><b/></a></urlset>`, { limits: { maxDepth: 2 } })),
  },
  {
    code: 'RS_XML_TOO_MANY_ATTRIBUTES',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() =>
        parseDocument(`${URLSET}<a x="1" y="2" z="3"/></urlset>`, { limits: { maxAttributes: 2 } }),
      ),
  },
  {
    code: 'RS_XML_TOO_MANY_ELEMENTS',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() => parseDocument(`${URLSET}<a/><a/></urlset>`, { limits: { maxElements: 2 } })),
  },
  {
    code: 'RS_XML_NAME_TOO_LONG',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() =>
        parseDocument(`${URLSET}<abcdefgh/></urlset>`, { limits: { maxNameLength: 7 } }),
      ),
  },
  {
    code: 'RS_XML_VALUE_TOO_LONG',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() =>
        parseDocument(`${URLSET}<a x="12345"/></urlset>`, {
          limits: { maxAttributeValueLength: 4 },
        }),
      ),
  },
  {
    code: 'RS_XML_TEXT_TOO_LONG',
    name: 'XmlLimitError',
    cls: XmlLimitError,
    make: () =>
      thrown(() =>
        parseDocument(`${URLSET}<a>12345</a></urlset>`, { limits: { maxTextLength: 4 } }),
      ),
  },
  {
    code: 'RS_BAD_DATETIME',
    name: 'DateTimeError',
    cls: DateTimeError,
    make: () => thrown(() => parseDateTime('x')),
  },
  {
    code: 'RSN_OUTBOUND_PRIVATE_ADDRESS',
    name: 'OutboundAddressError',
    cls: OutboundAddressError,
    make: () => thrown(() => checkOutboundUrl('http://10.0.0.1/', { allowPrivateNetworks: false })),
  },
  {
    code: 'RSN_OUTBOUND_BAD_URL',
    name: 'OutboundUrlError',
    cls: OutboundUrlError,
    make: () => thrown(() => checkOutboundUrl('gopher://x/', { allowPrivateNetworks: false })),
  },
  // discoverSource is async; it throws this once every route failed (subscriber/test/discovery.test.ts).
  {
    code: 'RSN_DISCOVERY_FAILED',
    name: 'DiscoveryError',
    cls: DiscoveryError,
    make: () => new DiscoveryError('http://x.test/', 'no Capability List found', []),
  },
];

test('every error code: class, name and code as pinned; all extend RsnotifyError and serialise to JSON', () => {
  for (const row of TABLE) {
    const err = row.make();
    assert.ok(err instanceof row.cls, `${row.code}: ${String(err)}`);
    assert.ok(err instanceof RsnotifyError);
    assert.ok(isRsnotifyError(err, row.code));
    assert.equal(err.name, row.name);
    assert.equal(err.code, row.code);
    assert.equal(typeof err.message, 'string');
    assert.deepEqual(Object.keys(err.toJSON()), ['name', 'code', 'message', 'details']);
    assert.deepEqual(describeError(err), { code: row.code, message: err.message });
  }
});

test('the catalog lists exactly the pinned codes, each with the class that carries it and a meaning', () => {
  assert.deepEqual(
    Object.keys(SHARED_ERRORS).sort(),
    [...new Set(TABLE.map((r) => r.code))].sort(),
  );
  for (const row of TABLE) {
    const entry = SHARED_ERRORS[row.code as keyof typeof SHARED_ERRORS];
    assert.ok(entry.class.split('|').includes(row.name), `${row.code} is carried by ${row.name}`);
    assert.ok(entry.meaning.length > 0);
  }
});

test('document errors carry data, not only prose (line, element, entry, value)', () => {
  const err = thrown(() =>
    parseDocument(
      `${URLSET}\n<url><loc>a</loc></url>\n<url><loc>b</loc><rs:md length="big"/></url></urlset>`,
    ),
  ) as DocumentError;
  assert.deepEqual(
    { ...err.details },
    { element: 'rs:md', attribute: 'length', value: 'big', line: 3, entry: 1 },
  );
});

test('no error code in shared/src is missing from the table', async () => {
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  const codes = new Set<string>();
  async function scan(dir: string): Promise<void> {
    for (const name of await readdir(dir)) {
      const p = join(dir, name);
      if ((await stat(p)).isDirectory()) await scan(p);
      else if (name.endsWith('.ts'))
        for (const m of (await readFile(p, 'utf8')).matchAll(/'(RSN?_[A-Z0-9_]+)'/g))
          codes.add(m[1]!);
    }
  }
  await scan(src);
  assert.deepEqual([...codes].sort(), [...new Set(TABLE.map((r) => r.code))].sort());
});
