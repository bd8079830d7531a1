// Server-rendered console pages (hono's html tag escapes every interpolated value). Views receive
// redacted data only: nothing here can print a token, secret or callback path it was not given.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ClusterCounters } from './store.js';
import type { SourceView, SubscriptionView } from './service.js';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const NAV: readonly [string, string][] = [
  ['/admin/', 'Overview'],
  ['/admin/sources', 'Sources'],
  ['/admin/topics', 'Topics'],
  ['/admin/subscribers', 'Subscribers'],
  ['/admin/rejections', 'Rejections'],
];

export function page(title: string, current: string, csrf: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · rsnotify hub</title>
        <link rel="stylesheet" href="/admin/static/console.css" />
      </head>
      <body>
        <header>
          <h1>rsnotify hub</h1>
          <nav>
            ${NAV.map(([href, label]) => html`<a href="${href}" ${href === current ? html` class="current"` : ''}>${label}</a>`)}
          </nav>
          <form class="inline" method="post" action="/admin/logout">
            <input type="hidden" name="_csrf" value="${csrf}" /><button type="submit">
              Log out
            </button>
          </form>
        </header>
        <main>${body}</main>
        <script src="/admin/static/console.js"></script>
      </body>
    </html>`;
}

export function loginPage(message?: string): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Log in · rsnotify hub</title>
        <link rel="stylesheet" href="/admin/static/console.css" />
      </head>
      <body>
        <main class="login">
          <h2>rsnotify hub console</h2>
          ${message ? html`<p class="error">${message}</p>` : ''}
          <form class="card" method="post" action="/admin/login">
            <label for="token">Admin token</label
            ><input id="token" name="token" type="password" autocomplete="off" required />
            <p class="muted">
              Create one on the hub's machine with
              <code>rsnotify-hub admin token create NAME</code>.
            </p>
            <button class="primary" type="submit">Log in</button>
          </form>
        </main>
      </body>
    </html>`;
}

const COUNTER_LABELS: readonly [keyof ClusterCounters, string][] = [
  ['activeSubscriptions', 'active subscriptions'],
  ['pendingIntents', 'pending verifications'],
  ['queueDepth', 'queued deliveries'],
  ['givenUp', 'given-up deliveries'],
  ['notificationsLastMinute', 'notifications, last minute'],
  ['rejectionsLastHour', 'rejections, last hour'],
];

export function countersStrip(c: ClusterCounters): Html {
  return html`<section class="counters">
    ${COUNTER_LABELS.map(
      ([key, label]) =>
        html`<div class="counter">
          <b data-counter="${key}">${c[key]}</b><span>${label}</span>
        </div>`,
    )}
  </section>`;
}

export function healthBadge(s: SubscriptionView): Html {
  return html`<span class="badge ${s.health}" data-health="${s.health}" data-health-for="${s.id}"
    >${s.health}</span
  >`;
}

export function subscriptionsTable(subs: readonly SubscriptionView[]): Html {
  if (subs.length === 0) return html`<p class="muted">No subscriptions.</p>`;
  return html`<table id="subscriptions">
    <thead>
      <tr>
        <th>Health</th>
        <th>Topic</th>
        <th>Callback</th>
        <th>Lease</th>
        <th class="num">Queue</th>
        <th class="num">Attempts</th>
        <th>Last error</th>
        <th class="num">Given up</th>
      </tr>
    </thead>
    <tbody>
      ${subs.map(
        (s) =>
          html`<tr data-subscription-id="${s.id}">
            <td>${healthBadge(s)}</td>
            <td><code>${s.topic}</code></td>
            <td>
              <a href="/admin/subscribers/${s.id}"><code>${s.callback}</code></a
              >${s.signed ? html` <span class="muted">signed</span>` : ''}
            </td>
            <td>
              ${s.state === 'expired' ? html`<span class="badge expired">expired</span>` : s.leaseExpiresAt.slice(0, 16).replace('T', ' ')}
            </td>
            <td class="num" data-field="queueDepth">${s.queueDepth}</td>
            <td class="num" data-field="attempts">${s.attempts}</td>
            <td data-field="lastError">${s.lastError ?? ''}</td>
            <td class="num" data-field="givenUp">${s.givenUp}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function sourcesTable(sources: readonly SourceView[], csrf: string): Html {
  if (sources.length === 0) return html`<p class="muted">No Sources registered yet.</p>`;
  return html`<table id="sources">
    <thead>
      <tr>
        <th>Name</th>
        <th>Topic prefixes</th>
        <th>Allowed callbacks</th>
        <th>Token</th>
        <th>Registered</th>
        <th></th>
      </tr>
    </thead>
    <tbody>
      ${sources.map(
        (s) =>
          html`<tr data-source="${s.name}">
            <td><b>${s.name}</b></td>
            <td>${s.topicPrefixes.map((p) => html`<code>${p}</code><br />`)}</td>
            <td>
              ${s.allowCallbacks.length === 0 ? html`<span class="muted">any</span>` : s.allowCallbacks.map((p) => html`<code>${p}</code><br />`)}
            </td>
            <td><code>${s.tokenFingerprint}</code></td>
            <td>${s.createdAt.slice(0, 10)}</td>
            <td>
              <form
                class="inline"
                method="post"
                action="/admin/sources/${encodeURIComponent(s.name)}/rotate"
              >
                <input type="hidden" name="_csrf" value="${csrf}" /><button type="submit">
                  Rotate token
                </button>
              </form>
              <form
                class="inline"
                method="post"
                action="/admin/sources/${encodeURIComponent(s.name)}/remove"
              >
                <input type="hidden" name="_csrf" value="${csrf}" /><button
                  class="danger"
                  type="submit"
                >
                  Remove
                </button>
              </form>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

export function addSourceForm(csrf: string): Html {
  return html`<form class="card" id="add-source" method="post" action="/admin/sources">
    <input type="hidden" name="_csrf" value="${csrf}" />
    <h3>Add a Source</h3>
    <label for="name">Name</label
    ><input id="name" name="name" type="text" required pattern="[A-Za-z0-9][A-Za-z0-9._-]{0,99}" />
    <fieldset>
      <legend>A Source that publishes (gets a token)</legend>
      <label for="topicPrefixes">Topic prefixes (one per line)</label
      ><textarea id="topicPrefixes" name="topicPrefixes" rows="2"></textarea>
      <label for="allowCallbacks">Allowed callback prefixes (one per line; empty: any)</label
      ><textarea id="allowCallbacks" name="allowCallbacks" rows="2"></textarea>
    </fieldset>
    <fieldset>
      <legend>Or a Source the hub polls (only publishes Change Lists)</legend>
      <label for="poll">Poll URL (base URL, Source Description or Capability List)</label
      ><input id="poll" name="poll" type="url" />
      <label for="pollInterval">Poll interval (e.g. 30s, 5m; empty: 30s)</label
      ><input id="pollInterval" name="pollInterval" type="text" pattern="[0-9]+(ms|s|m|h)?" />
    </fieldset>
    <p><button class="primary" type="submit">Add Source</button></p>
  </form>`;
}

export function tokenShownOnce(what: string, name: string, token: string): Html {
  return html`<p class="notice">
      ${what} <b>${name}</b>. Its publish token is shown <b>only now</b>; the hub keeps only a hash.
    </p>
    <p><code class="secret" id="new-token">${token}</code></p>
    <p>
      The Source sends it as <code>Authorization: Bearer &lt;token&gt;</code>.
      <a href="/admin/sources">Back to Sources</a>
    </p>`;
}
