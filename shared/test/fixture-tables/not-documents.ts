// The fixture files that are not ResourceSync documents, and the XML files refused on purpose.
import type { DocumentErrorCode } from '@rsnotify/shared';

/** XML files refused on purpose, with the code and why. */
export const REFUSED: Record<string, { code: DocumentErrorCode; why: string }> = {
  'notifications/resourcesync_push_publisher-template_MALFORMED-leading-newline.xml': {
    code: 'RS_XML_MALFORMED',
    why: 'a newline before <?xml ...?> (fixtures README)',
  },
};

/** Files that are not ResourceSync documents: what parseDocument says, and which helper reads them. */
export const NOT_DOCUMENTS: Record<string, { code: DocumentErrorCode; helper: string }> = {
  'LICENSE-Apache-2.0.txt': { code: 'RS_XML_MALFORMED', helper: 'none: licence text' },
  'LICENSES.md': { code: 'RS_XML_MALFORMED', helper: 'none: documentation' },
  'README.md': { code: 'RS_XML_MALFORMED', helper: 'none: documentation' },
  'notifications/spec-notification-1.0.1_ex6_hub-to-destination-POST.http': {
    code: 'RS_XML_MALFORMED',
    helper: 'parseLinkHeader',
  },
  'destination-cases/discover/loc1/page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/corrupt_page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/header_page.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc1/unparsable.html': {
    code: 'RS_XML_MALFORMED',
    helper: 'extractEmbeddedLinks',
  },
  'destination-cases/discover/loc2/robots.txt': {
    code: 'RS_XML_MALFORMED',
    helper: 'extractRobotsSitemaps',
  },
  'schemas/resourcesync.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'schemas/siteindex.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'schemas/sitemap.xsd': { code: 'RS_UNKNOWN_ROOT', helper: 'none: XML Schema' },
  'simulator-captures/sim-v1.1_resource-1.body.txt': {
    code: 'RS_UNKNOWN_ROOT',
    helper: 'none: a 404 page body',
  },
  'simulator-captures/sim-v1.1_resource-1.headers.txt': {
    code: 'RS_XML_MALFORMED',
    helper: 'parseLinkHeader (no Link header)',
  },
  'simulator-captures/sim_home.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'spec-html/resourcesync-1.0.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
  'spec-html/resourcesync-1.0.9-draft-of-1.1.html': {
    code: 'RS_DOCTYPE_FORBIDDEN',
    helper: 'extractEmbeddedLinks',
  },
};
