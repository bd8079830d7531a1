// RFC 8288 Link headers (RT-2, RT-4, WH-17, RC-8) and the embedded link forms used for discovery
// (HTML <link>, Atom <link>, RSS <atom:link>; WS-1, RC-8).

export interface WebLink {
  readonly href: string;
  /** Lower-cased relation types; one link may carry several (`rel="self hub"`). */
  readonly rels: readonly string[];
  /** Other parameters, names lower-cased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
}

function skipWs(s: string, i: number): number {
  while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\r' || s[i] === '\n')) i++;
  return i;
}

/**
 * Parses one or more `Link` header values (several links per header, several headers). Malformed
 * members are skipped rather than failing the whole header. Relative hrefs resolve against `baseUrl`.
 */
export function parseLinkHeader(
  value: string | readonly string[] | undefined | null,
  baseUrl?: string,
): WebLink[] {
  if (value == null) return [];
  const values = typeof value === 'string' ? [value] : value;
  const links: WebLink[] = [];
  for (const header of values) {
    let i = 0;
    const s = header;
    while (i < s.length) {
      i = skipWs(s, i);
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] !== '<') {
        // Garbage: skip to the next comma outside quotes.
        while (i < s.length && s[i] !== ',') i++;
        continue;
      }
      const end = s.indexOf('>', i + 1);
      if (end < 0) break;
      const rawHref = s.slice(i + 1, end).trim();
      i = end + 1;
      const params: Record<string, string> = {};
      let rel = '';
      for (;;) {
        i = skipWs(s, i);
        if (s[i] !== ';') break;
        i = skipWs(s, i + 1);
        let name = '';
        while (i < s.length && /[^=;,\s]/.test(s[i]!)) name += s[i++];
        i = skipWs(s, i);
        let val = '';
        if (s[i] === '=') {
          i = skipWs(s, i + 1);
          if (s[i] === '"') {
            i++;
            while (i < s.length && s[i] !== '"') {
              if (s[i] === '\\' && i + 1 < s.length) i++;
              val += s[i++];
            }
            i++;
          } else {
            while (i < s.length && /[^;,\s]/.test(s[i]!)) val += s[i++];
          }
        }
        const key = name.toLowerCase();
        if (!key) continue;
        if (key === 'rel') {
          if (!rel) rel = val;
        } // RFC 8288 §3.3: only the first rel counts
        else if (!(key in params)) params[key] = val;
      }
      let href = rawHref;
      if (baseUrl) {
        try {
          href = new URL(rawHref, baseUrl).href;
        } catch {
          /* keep as written */
        }
      }
      links.push({ href, rels: rel.toLowerCase().split(/\s+/).filter(Boolean), params });
    }
  }
  return links;
}

/** The hrefs of every link with relation `rel`, in order. */
export function linksWithRel(links: readonly WebLink[], rel: string): string[] {
  const r = rel.toLowerCase();
  return links.filter((l) => l.rels.includes(r)).map((l) => l.href);
}

export function firstLinkWithRel(links: readonly WebLink[], rel: string): string | undefined {
  return linksWithRel(links, rel)[0];
}

function quote(v: string): string {
  return `"${v.replace(/(["\\])/g, '\\$1')}"`;
}

/** Formats links as one header value: `<a>; rel="self", <b>; rel="hub"` (WH-17 prefers one header). */
export function formatLinkHeader(
  links: readonly {
    href: string;
    rel: string | readonly string[];
    params?: Record<string, string>;
  }[],
): string {
  return links
    .map((l) => {
      const rel = typeof l.rel === 'string' ? l.rel : l.rel.join(' ');
      const extra = Object.entries(l.params ?? {})
        .map(([k, v]) => `; ${k}=${quote(v)}`)
        .join('');
      return `<${l.href}>; rel=${quote(rel)}${extra}`;
    })
    .join(', ');
}

const ATTR = /([^\s=/>"']+)\s*(?:=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

function decodeHtmlEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (_m, e: string) => {
    const l = e.toLowerCase();
    if (l === 'amp') return '&';
    if (l === 'lt') return '<';
    if (l === 'gt') return '>';
    if (l === 'quot') return '"';
    if (l === 'apos') return "'";
    const code = l.startsWith('#x') ? parseInt(l.slice(2), 16) : parseInt(l.slice(1), 10);
    return Number.isFinite(code) ? String.fromCodePoint(code) : _m;
  });
}

function readAttributes(tag: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  ATTR.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ATTR.exec(tag)) !== null) {
    const name = m[1]!.toLowerCase();
    if (!(name in attrs)) attrs[name] = decodeHtmlEntities(m[2] ?? m[3] ?? m[4] ?? '');
  }
  return attrs;
}

/**
 * Extracts `<link>` elements from HTML (only within `<head>` when there is one, WS-1) or from an Atom
 * / RSS feed (`<link>` and `<atom:link>`). A tolerant scan, not a full parser: a discovery hint only.
 */
export function extractEmbeddedLinks(markup: string, baseUrl?: string): WebLink[] {
  let scope = markup;
  const headEnd = /<\/head\s*>/i.exec(markup);
  if (headEnd && /<head[\s>]/i.test(markup)) scope = markup.slice(0, headEnd.index);
  let base = baseUrl;
  const baseTag = /<base\s[^>]*>/i.exec(scope);
  if (baseTag) {
    const href = readAttributes(baseTag[0].slice(5, -1)).href;
    if (href) {
      try {
        base = new URL(href, baseUrl).href;
      } catch {
        /* ignore */
      }
    }
  }
  const out: WebLink[] = [];
  const LINK = /<(?:[a-z0-9_-]+:)?link\b([^>]*)>/gi;
  let m: RegExpExecArray | null;
  while ((m = LINK.exec(scope)) !== null) {
    const attrs = readAttributes(m[1]!.replace(/\/$/, ''));
    if (!attrs.href || !attrs.rel) continue;
    let href = attrs.href.trim();
    if (base) {
      try {
        href = new URL(href, base).href;
      } catch {
        continue;
      }
    }
    const { href: _h, rel, ...params } = attrs;
    out.push({ href, rels: rel.toLowerCase().split(/\s+/).filter(Boolean), params });
  }
  return out;
}

/** `Sitemap:` lines of a robots.txt (RC-9), resolved against the robots.txt URL. */
export function extractRobotsSitemaps(robotsTxt: string, baseUrl?: string): string[] {
  const out: string[] = [];
  for (const line of robotsTxt.split(/\r?\n/)) {
    const m = /^\s*sitemap\s*:\s*(\S+)/i.exec(line);
    if (!m) continue;
    try {
      out.push(baseUrl ? new URL(m[1]!, baseUrl).href : m[1]!);
    } catch {
      /* skip */
    }
  }
  return out;
}
