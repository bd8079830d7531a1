// Namespaces in XML 1.0 on top of saxes in plain mode. RC-1 matches elements by namespace URI, so
// every start tag is resolved here: its declarations first (they apply to the tag itself), then its
// name, then its prefixed attributes. saxes's own namespace mode gave the same answers at about
// twice the cost of its plain mode (test/bench "notification check"); the rules below are the ones
// it enforced, and a differential test holds the two readers to the same verdicts.

/** The namespace the `xml` prefix is bound to, always. */
export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
/** The namespace URI of the XMLNS attributes themselves. */
export const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** In-scope bindings: prefix ('' for the default namespace) to URI. */
export interface NamespaceBindings {
  get(prefix: string): string | undefined;
}

/**
 * The bindings of an element that declares namespaces: its own declarations over its parent's.
 * Copying the parent's bindings instead made every declaring element cost as much as all the
 * declarations in scope: a document of nested declarations and many declaring leaves took time
 * quadratic in its size (55 s of CPU for a 1 MiB one, where a publish may be 16 MiB). A prefix found
 * in an ancestor is remembered on the way, so siblings do not walk the same ancestors again.
 */
export class DeclaredBindings implements NamespaceBindings {
  /** This element's declarations only. */
  readonly own = new Map<string, string>();
  /** Prefixes looked up through this element and resolved by its ancestors (undefined included). */
  private readonly inherited = new Map<string, string | undefined>();

  constructor(private readonly parent: NamespaceBindings) {}

  get(prefix: string): string | undefined {
    const uri = this.own.get(prefix);
    if (uri !== undefined) return uri;
    if (this.inherited.has(prefix)) return this.inherited.get(prefix);
    // Recursion is bounded by the element depth (XmlLimits.maxDepth), once per prefix and scope.
    const found = this.parent.get(prefix);
    this.inherited.set(prefix, found);
    return found;
  }
}

/** What every document starts with: `xml` and `xmlns` are bound, nothing else. */
export const ROOT_BINDINGS: NamespaceBindings = new Map([
  ['xml', XML_NAMESPACE],
  ['xmlns', XMLNS_NS],
]);

export interface XmlAttribute {
  /** The qualified name as written. */
  readonly name: string;
  readonly value: string;
}

/** A start tag with its namespaces resolved. */
export interface XmlTag {
  /** The qualified name as written. */
  readonly name: string;
  readonly prefix: string;
  readonly local: string;
  /** '' when the element is in no namespace. */
  readonly uri: string;
  /** In document order, namespace declarations included. */
  readonly attributes: readonly XmlAttribute[];
  /** The bindings in scope for this element's content. */
  readonly bindings: NamespaceBindings;
}

/** The reason a declaration of `prefix` ('' for the default namespace) to `uri` is not allowed. */
export function declarationError(prefix: string, uri: string, xml11: boolean): string | undefined {
  if (prefix === 'xml' && uri !== XML_NAMESPACE)
    return `xml prefix must be bound to ${XML_NAMESPACE}.`;
  if (prefix === 'xmlns') return `xmlns prefix must be bound to ${XMLNS_NS}.`;
  if (uri === XMLNS_NS) {
    return prefix === ''
      ? `the default namespace may not be set to ${uri}.`
      : `may not assign a prefix (even "xmlns") to the URI ${XMLNS_NS}.`;
  }
  if (uri === XML_NAMESPACE && prefix !== 'xml') {
    return prefix === ''
      ? `the default namespace may not be set to ${uri}.`
      : 'may not assign the xml namespace to another prefix.';
  }
  // Undeclaring a prefix is XML 1.1 only; undeclaring the default namespace is always allowed.
  if (prefix !== '' && uri === '' && !xml11) return 'invalid attempt to undefine prefix in XML 1.0';
  return undefined;
}

/** The colon of a qualified name, -1 without one, or -2 when the name is malformed. */
function colonOf(name: string): number {
  const colon = name.indexOf(':');
  if (colon === -1) return -1;
  if (colon === 0 || colon === name.length - 1 || name.indexOf(':', colon + 1) !== -1) return -2;
  return colon;
}

/** Two prefixed attributes naming the same {URI}local pair (different prefixes, one URI). */
function duplicateExpandedName(
  attributes: readonly XmlAttribute[],
  bindings: NamespaceBindings,
): string | undefined {
  const seen = new Set<string>();
  for (const { name } of attributes) {
    const colon = name.indexOf(':');
    if (colon === -1 || name.startsWith('xmlns:')) continue;
    const expanded = `{${bindings.get(name.slice(0, colon))}}${name.slice(colon + 1)}`;
    if (seen.has(expanded)) return `duplicate attribute: ${expanded}.`;
    seen.add(expanded);
  }
  return undefined;
}

/**
 * Resolves one start tag in its parent's bindings. Returns the tag, or the reason the document is
 * not namespace-well-formed: a malformed or unbound prefix, a forbidden declaration, `xmlns` as an
 * element prefix, or one attribute twice under two prefixes of the same URI.
 */
export function resolveTag(
  name: string,
  attributes: readonly XmlAttribute[],
  parent: NamespaceBindings,
  xml11: boolean,
): XmlTag | string {
  let bindings = parent;
  let prefixedAttributes = 0;
  for (let i = 0; i < attributes.length; i++) {
    const { name: attribute, value } = attributes[i]!;
    const colon = colonOf(attribute);
    if (colon === -2) return `malformed name: ${attribute}.`;
    let prefix: string;
    if (colon === -1) {
      if (attribute !== 'xmlns') continue;
      prefix = '';
    } else if (attribute.startsWith('xmlns:')) {
      prefix = attribute.slice(6);
    } else {
      prefixedAttributes++;
      continue;
    }
    const uri = value.trim();
    const error = declarationError(prefix, uri, xml11);
    if (error !== undefined) return error;
    if (bindings === parent) bindings = new DeclaredBindings(parent);
    (bindings as DeclaredBindings).own.set(prefix, uri);
  }

  const colon = colonOf(name);
  if (colon === -2) return `malformed name: ${name}.`;
  const prefix = colon === -1 ? '' : name.slice(0, colon);
  const local = colon === -1 ? name : name.slice(colon + 1);
  if (prefix === 'xmlns') return 'tags may not have "xmlns" as prefix.';
  const uri = bindings.get(prefix) ?? '';
  if (prefix !== '' && uri === '') return `unbound namespace prefix: ${JSON.stringify(prefix)}.`;

  if (prefixedAttributes > 0) {
    for (const { name: attribute } of attributes) {
      const at = attribute.indexOf(':');
      if (at === -1 || attribute.startsWith('xmlns:')) continue;
      const attributePrefix = attribute.slice(0, at);
      if (!bindings.get(attributePrefix)) {
        return `unbound namespace prefix: ${JSON.stringify(attributePrefix)}.`;
      }
    }
    if (prefixedAttributes > 1) {
      const duplicate = duplicateExpandedName(attributes, bindings);
      if (duplicate !== undefined) return duplicate;
    }
  }
  return { name, prefix, local, uri, attributes, bindings };
}
