// Free text that may quote a URL or a token (an error message, a refusal reason) made safe to show
// in a log, a console page or an API answer: every URL redacted as redact.ts does (origin and a path
// hash), and anything shaped like an rsnotify token (rsn_…, rsnadm_…) cut.
import { redactUrl } from './redact.js';

const URL_IN_TEXT = /https?:\/\/[^\s"'<>]+/g;
const TOKEN_IN_TEXT = /\brsn(?:adm)?_[A-Za-z0-9_-]{16,}/g;

export function redactText(text: string): string {
  return text.replace(URL_IN_TEXT, (u) => redactUrl(u)).replace(TOKEN_IN_TEXT, '[token]');
}
