// The daemon's status page (/status): the same SourceStatus objects as `status --json`, one card per
// Source. Pure rendering; hono's html tag escapes every value. It refreshes itself every few seconds
// with a meta refresh, so it needs no script and runs under a CSP that forbids all of them.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import {
  describeCatchUp,
  describeGap,
  describeReconciliation,
  type CatchUpStatus,
  type GapStatus,
  type ReconciliationStatus,
} from './activity.js';
import type { SourceStatus } from './source-status.js';

/** The fields shown first, in this order; any other field of SourceStatus follows them. */
const FIRST: readonly (keyof SourceStatus)[] = [
  'mode',
  'subscriptionState',
  'hub',
  'topic',
  'leaseExpiresAt',
  'renewAt',
  'syncedUntil',
  'lagMs',
  'buffered',
  'gaps',
  'gapOpenSince',
  'lastGap',
  'catchUps',
  'lastCatchUp',
  'lastReconciliation',
  'changesApplied',
  'resources',
  'lastAppliedAt',
  'errors',
  'lastError',
];

const LABELS: Partial<Record<string, string>> = {
  subscriptionState: 'subscription',
  leaseExpiresAt: 'lease expires',
  renewAt: 'renew at',
  syncedUntil: 'synced until',
  lagMs: 'lag (ms)',
  gapOpenSince: 'gap open since',
  lastGap: 'last gap',
  catchUps: 'catch-ups',
  lastCatchUp: 'last catch-up',
  lastReconciliation: 'last reconciliation',
  changesApplied: 'changes applied',
  lastAppliedAt: 'last applied',
  lastError: 'last error',
  ignoredDeliveries: 'ignored deliveries',
  deniedReason: 'denied',
  baselineAt: 'baseline at',
};

function orderedEntries(s: SourceStatus): [string, unknown][] {
  const rec = s as unknown as Record<string, unknown>;
  const keys = [
    ...FIRST.filter((k) => k in rec),
    ...Object.keys(rec).filter((k) => k !== 'name' && !FIRST.includes(k as keyof SourceStatus)),
  ];
  return keys.map((k) => [k, rec[k]]);
}

/** The nested records read as one line each, as in `status`; any other value as itself. */
function display(key: string, v: unknown): string {
  if (v === undefined || v === null) return '';
  if (key === 'lastGap') return describeGap(v as GapStatus);
  if (key === 'lastCatchUp') return describeCatchUp(v as CatchUpStatus);
  if (key === 'lastReconciliation') return describeReconciliation(v as ReconciliationStatus);
  return typeof v === 'object'
    ? JSON.stringify(v)
    : String(v as string | number | boolean | bigint);
}

export const STATUS_CSS = `body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#1d2430;background:#f6f7f9}
header{padding:10px 24px;background:#1d2430;color:#fff;display:flex;justify-content:space-between;align-items:center}header h1{font-size:16px;margin:0}main{padding:20px 24px;max-width:1000px}
section{background:#fff;border:1px solid #d9dee6;border-radius:6px;margin-bottom:16px;padding:8px 14px}
h2{font-size:16px;margin:6px 0}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #eef1f5}
th{width:180px;color:#5d6b7e;font-weight:600}td{font-variant-numeric:tabular-nums;word-break:break-all}
.lag-ok{color:#17803d;font-weight:600}.lag-behind{color:#a35f00;font-weight:600}.muted{color:#5d6b7e}`;

export function statusPage(
  statuses: readonly SourceStatus[],
  generatedAt: string,
  options: { logout?: boolean } = {},
): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta http-equiv="refresh" content="5" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>rsnotify subscriber status</title>
        <link rel="stylesheet" href="/status.css" />
      </head>
      <body>
        <header>
          <h1>rsnotify subscriber</h1>
          ${
            options.logout
              ? html`<form method="post" action="/status/logout">
                  <button type="submit">Log out</button>
                </form>`
              : ''
          }
        </header>
        <main>
          <p class="muted">
            As of <time>${generatedAt}</time>; the same data as
            <code>rsnotify-subscriber status --json</code> and
            <a href="/status.json">/status.json</a>.
          </p>
          ${
            statuses.length === 0
              ? html`<p>No Sources configured.</p>`
              : statuses.map(
                  (s) =>
                    html`<section data-source="${s.name}">
                      <h2>${s.name}</h2>
                      <table>
                        ${orderedEntries(s).map(([k, v]) => html`<tr data-field="${k}"><th>${LABELS[k] ?? k}</th><td${k === 'lagMs' ? html` class="${Number(v) === 0 ? 'lag-ok' : 'lag-behind'}"` : ''}>${display(k, v)}</td></tr>`)}
                      </table>
                    </section>`,
                )
          }
        </main>
      </body>
    </html>`;
}
