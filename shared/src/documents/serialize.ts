// Writes a document back as XML. Datetimes are written as their lexical form and hashes as their
// tokens, so parseDocument(serializeDocument(d)) deep-equals d. URIs are written as given (only
// XML-escaped): a Source's `<loc>` is an identifier, and rewriting it would break matching.
import { escapeAttribute, escapeText } from '../xml/index.js';
import { formatLinkAttributes, formatMetadataAttributes } from './attributes.js';
import {
  RS_NS,
  SITEMAP_NS,
  type Entry,
  type LinkElement,
  type Metadata,
  type ResourceSyncDocument,
  type XmlElement,
} from './model.js';

interface Prefixes {
  /** `''` or `'sm:'`: how sitemap elements are written. */
  readonly sitemap: string;
  /** `'rs:'` (or the document's own prefix). */
  readonly rs: string;
  /** Written on each rs element when the root does not bind the rs namespace. */
  readonly rsDeclaration: string;
}

function prefixFor(namespaces: Readonly<Record<string, string>>, uri: string): string | undefined {
  for (const name in namespaces) {
    if (namespaces[name] !== uri) continue;
    if (name === 'xmlns') return '';
    if (name.startsWith('xmlns:')) return `${name.slice(6)}:`;
  }
  return undefined;
}

/**
 * The root's namespace declarations: the document's own, plus the sitemap default namespace when
 * the document declares no default at all (a model built in code with `namespaces: {}`).
 */
function rootNamespaces(doc: ResourceSyncDocument): {
  declarations: Record<string, string>;
  prefixes: Prefixes;
} {
  const declarations: Record<string, string> = { ...doc.namespaces };
  let sitemap = prefixFor(declarations, SITEMAP_NS);
  if (sitemap === undefined) {
    if (!('xmlns' in declarations)) declarations.xmlns = SITEMAP_NS;
    sitemap = '';
  }
  const rs = prefixFor(declarations, RS_NS);
  if (rs !== undefined && rs !== '')
    return { declarations, prefixes: { sitemap, rs, rsDeclaration: '' } };
  return { declarations, prefixes: { sitemap, rs: 'rs:', rsDeclaration: ` xmlns:rs="${RS_NS}"` } };
}

function writeElement(el: XmlElement, indent: string): string {
  let attrs = '';
  for (const name in el.attributes) attrs += ` ${name}="${escapeAttribute(el.attributes[name]!)}"`;
  if (el.children.length > 0) {
    const inner = el.children.map((c) => writeElement(c, `${indent}  `)).join('');
    return `${indent}<${el.name}${attrs}>\n${inner}${indent}</${el.name}>\n`;
  }
  if (el.text !== undefined)
    return `${indent}<${el.name}${attrs}>${escapeText(el.text)}</${el.name}>\n`;
  return `${indent}<${el.name}${attrs}/>\n`;
}

function writeMd(md: Metadata, p: Prefixes, indent: string): string {
  return `${indent}<${p.rs}md${p.rsDeclaration}${formatMetadataAttributes(md)}/>\n`;
}

function writeLinks(links: readonly LinkElement[], p: Prefixes, indent: string): string {
  let out = '';
  for (const ln of links)
    out += `${indent}<${p.rs}ln${p.rsDeclaration}${formatLinkAttributes(ln)}/>\n`;
  return out;
}

function writeEntry(entry: Entry, element: string, p: Prefixes): string {
  const s = p.sitemap;
  let attrs = '';
  if (entry.extraAttributes)
    for (const name in entry.extraAttributes)
      attrs += ` ${name}="${escapeAttribute(entry.extraAttributes[name]!)}"`;
  let out = `  <${s}${element}${attrs}>\n    <${s}loc>${escapeText(entry.loc)}</${s}loc>\n`;
  if (entry.lastmod) out += `    <${s}lastmod>${escapeText(entry.lastmod.lexical)}</${s}lastmod>\n`;
  if (entry.changefreq !== undefined)
    out += `    <${s}changefreq>${escapeText(entry.changefreq)}</${s}changefreq>\n`;
  if (entry.md) out += writeMd(entry.md, p, '    ');
  out += writeLinks(entry.links, p, '    ');
  if (entry.extraElements) for (const el of entry.extraElements) out += writeElement(el, '    ');
  return `${out}  </${s}${element}>\n`;
}

/** Writes a document back; `parseDocument(serializeDocument(d))` equals `d`. */
export function serializeDocument(doc: ResourceSyncDocument): string {
  const { declarations, prefixes } = rootNamespaces(doc);
  const s = prefixes.sitemap;
  let rootAttrs = '';
  for (const name in declarations)
    rootAttrs += ` ${name}="${escapeAttribute(declarations[name]!)}"`;
  if (doc.extraAttributes)
    for (const name in doc.extraAttributes)
      rootAttrs += ` ${name}="${escapeAttribute(doc.extraAttributes[name]!)}"`;
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<${s}${doc.root}${rootAttrs}>\n`,
  ];
  // The model's `capability` and `md.capability` say the same; a model built in code may set only one.
  const md =
    doc.md.capability === undefined && doc.capability
      ? { ...doc.md, capability: doc.capability }
      : doc.md;
  if (Object.keys(md).length > 0) parts.push(writeMd(md, prefixes, '  '));
  parts.push(writeLinks(doc.links, prefixes, '  '));
  const element = doc.root === 'sitemapindex' ? 'sitemap' : 'url';
  for (const entry of doc.entries) parts.push(writeEntry(entry, element, prefixes));
  if (doc.extraElements) for (const el of doc.extraElements) parts.push(writeElement(el, '  '));
  parts.push(`</${s}${doc.root}>\n`);
  return parts.join('');
}
