// The hostile documents, one per case, shared by the pass/fail table (test/src/hostile-documents.test.ts,
// which asserts only the refusal code) and the bench (test/bench/scenarios/hostile.ts, which prints
// the worst parse time per case). Sizes are what a probe sent or what the 16 MiB publish limit and
// the 50 MiB document limit (RC-4) would let through. Written raw on purpose: hostile bytes that no
// serializer would produce.

const NS =
  'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:rs="http://www.openarchives.org/rs/terms/"';
const MD =
  '<rs:md capability="change-notification" from="2026-01-01T00:00:00Z" until="2026-01-01T00:00:01Z"/>';
const ENTRY = '<url><loc>http://a.test/r</loc><rs:md change="created"/></url>';

export interface HostileDocument {
  readonly name: string;
  /** The case the row covers: the probe finding or the standard it cites. */
  readonly covers: string;
  /** The refusal code expected from parseDocument and streamDocument. */
  readonly code: string;
  readonly make: () => string | Buffer;
  /** Limits the row parses with (both readers), when not the defaults. */
  readonly limits?: Readonly<Record<string, number>>;
}

function nested(depth: number, open = '<a>', close = '</a>'): string {
  return `<urlset ${NS}>${MD}${open.repeat(depth)}${close.repeat(depth)}</urlset>`;
}

function withBytes(bytes: number[]): Buffer {
  return Buffer.concat([
    Buffer.from(`<urlset ${NS}>${MD}<url><loc>http://a.test/`),
    Buffer.from(bytes),
    Buffer.from(`</loc><rs:md change="created"/></url></urlset>`),
  ]);
}

export const HOSTILE_DOCUMENTS: readonly HostileDocument[] = [
  {
    name: 'depth-30k',
    covers: 'probe: 30,000-deep nesting (330 KB) blocked the hub 6 s',
    code: 'RS_XML_TOO_DEEP',
    make: () => nested(30_000),
  },
  {
    name: 'depth-100k',
    covers: 'probe: 100,000-deep nesting took about 3 minutes',
    code: 'RS_XML_TOO_DEEP',
    make: () => nested(100_000),
  },
  {
    name: 'depth-1m-prefixed',
    covers: 'a million levels (the 16 MiB limit allows it), namespace-prefixed names',
    code: 'RS_XML_TOO_DEEP',
    make: () => nested(1_000_000, '<x:a xmlns:x="urn:x">', '</x:a>').slice(0, 16 * 1024 * 1024),
  },
  {
    name: 'attributes-100k',
    covers: 'attributes per element (each one a namespace check)',
    code: 'RS_XML_TOO_MANY_ATTRIBUTES',
    make: () =>
      `<urlset ${NS}>${MD}<url ${Array.from({ length: 100_000 }, (_, i) => `a${i}="x"`).join(' ')}/></urlset>`,
  },
  {
    name: 'xmlns-100k',
    covers: 'namespace declarations per element',
    code: 'RS_XML_TOO_MANY_ATTRIBUTES',
    make: () =>
      `<urlset ${NS}>${MD}<url ${Array.from({ length: 100_000 }, (_, i) => `xmlns:p${i}="urn:${i}"`).join(' ')}/></urlset>`,
  },
  {
    name: 'elements-flat',
    covers: 'total elements in a document (empty siblings past maxElements)',
    code: 'RS_XML_TOO_MANY_ELEMENTS',
    limits: { maxElements: 100_000 },
    make: () => `<urlset ${NS}>${MD}${'<b/>'.repeat(120_000)}</urlset>`,
  },
  {
    name: 'name-1m',
    covers: 'a 1 MB element name',
    code: 'RS_XML_NAME_TOO_LONG',
    make: () => `<urlset ${NS}>${MD}<${'n'.repeat(1_000_000)}/></urlset>`,
  },
  {
    name: 'attr-value-8m',
    covers: 'an 8 MB attribute value (refused while still being read)',
    code: 'RS_XML_TEXT_TOO_LONG',
    make: () =>
      `<urlset ${NS}>${MD}<url><loc>http://a/</loc><rs:md change="created" hash="${'x'.repeat(8_000_000)}"/></url></urlset>`,
  },
  {
    name: 'text-8m',
    covers: 'an 8 MB text node outside loc',
    code: 'RS_XML_TEXT_TOO_LONG',
    make: () =>
      `<urlset ${NS}>${MD}<url><loc>http://a/</loc><x>${'t'.repeat(8_000_000)}</x></url></urlset>`,
  },
  {
    name: 'loc-1m',
    covers: 'a 1 MB loc',
    code: 'RS_XML_TEXT_TOO_LONG',
    make: () =>
      `<urlset ${NS}>${MD}<url><loc>http://a/${'p'.repeat(1_000_000)}</loc></url></urlset>`,
  },
  {
    name: 'utf8-ff',
    covers: 'probe: byte 0xFF accepted and relayed (XML 1.0 §2.2)',
    code: 'RS_XML_NOT_UTF8',
    make: () => withBytes([0xff]),
  },
  {
    name: 'utf8-overlong',
    covers: 'probe: overlong C0 AF accepted',
    code: 'RS_XML_NOT_UTF8',
    make: () => withBytes([0xc0, 0xaf]),
  },
  {
    name: 'utf8-surrogate',
    covers: 'probe: encoded surrogate ED A0 80 accepted',
    code: 'RS_XML_NOT_UTF8',
    make: () => withBytes([0xed, 0xa0, 0x80]),
  },
  {
    name: 'no-namespace',
    covers: 'probe: <urlset> without the sitemap namespace accepted (RN-1)',
    code: 'RS_NAMESPACE_MISSING',
    make: () => `<urlset>${ENTRY}</urlset>`,
  },
  {
    name: 'doctype-bomb',
    covers: 'billion laughs (DTD entities)',
    code: 'RS_DOCTYPE_FORBIDDEN',
    make: () =>
      `<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><urlset ${NS}><url><loc>&b;</loc></url></urlset>`,
  },
  {
    name: 'unclosed-deep',
    covers: 'truncated deep document',
    code: 'RS_XML_MALFORMED',
    make: () => `<urlset ${NS}>${'<a>'.repeat(50)}`,
  },
];
