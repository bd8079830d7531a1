// The web console's pages and form posts. Pages are rendered on the server from AdminService views;
// every form carries the session's CSRF token (checked in auth.ts before these handlers run).
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import { errorAnswer, subscriptionFilter } from './api.js';
import type { AdminEnv } from './auth.js';
import { AdminError, type AdminService } from './service.js';
import {
  addSourceForm,
  countersStrip,
  page,
  sourcesTable,
  subscriptionsTable,
  tokenShownOnce,
} from './views.js';
import { bridgedAdded, bridgedTable } from './bridged-views.js';

function lines(v: unknown): string[] {
  return typeof v === 'string'
    ? v
        .split(/\r?\n/)
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
    : [];
}

async function messageOf(c: Context, err: unknown): Promise<string> {
  const res = errorAnswer(c, err); // rethrows anything that is not a client error
  const body = (await res.json()) as { message?: string };
  return body.message ?? 'request refused';
}

export function createConsolePages(service: AdminService): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const csrf = (c: Context<AdminEnv>) => c.get('principal').csrf ?? '';

  const sourcesPage = async (c: Context<AdminEnv>, error?: string) =>
    c.html(
      page(
        'Sources',
        '/admin/sources',
        csrf(c),
        html`<h2>Sources</h2>
          ${error ? html`<p class="error">${error}</p>` : ''}${sourcesTable(await service.sources(), csrf(c))}${bridgedTable(await service.bridgedSources(), csrf(c))}${addSourceForm(csrf(c))}`,
      ),
      error ? 400 : 200,
    );

  // A page that shows a Source token once: never kept by a cache.
  const tokenPage = (
    c: Context<AdminEnv>,
    title: string,
    what: string,
    name: string,
    token: string,
    status: 200 | 201 = 200,
  ) => {
    c.header('cache-control', 'no-store');
    return c.html(
      page(title, '/admin/sources', csrf(c), tokenShownOnce(what, name, token)),
      status,
    );
  };

  app.get('/sources', (c) => sourcesPage(c));
  app.post('/sources', async (c) => {
    const form = await c.req.parseBody();
    try {
      const poll = typeof form.poll === 'string' ? form.poll.trim() : '';
      if (poll !== '') {
        if (lines(form.topicPrefixes).length > 0)
          throw new AdminError(
            'RSN_ADMIN_BAD_POLL',
            'a Source is either polled (poll URL) or publishes (topic prefixes), not both',
          );
        const interval = typeof form.pollInterval === 'string' ? form.pollInterval.trim() : '';
        const bridged = await service.addBridgedSource({
          name: typeof form.name === 'string' ? form.name.trim() : '',
          pollUrl: poll,
          ...(interval ? { pollInterval: interval } : {}),
        });
        return c.html(
          page('Bridged Source added', '/admin/sources', csrf(c), bridgedAdded(bridged)),
          201,
        );
      }
      const { source, token } = await service.addSource({
        name: typeof form.name === 'string' ? form.name.trim() : '',
        topicPrefixes: lines(form.topicPrefixes),
        allowCallbacks: lines(form.allowCallbacks),
      });
      return tokenPage(c, 'Source added', 'Registered the Source', source.name, token, 201);
    } catch (err) {
      return sourcesPage(c, await messageOf(c, err));
    }
  });
  app.post('/sources/:name/rotate', async (c) => {
    const name = c.req.param('name');
    try {
      const { token } = await service.rotateSourceToken(name);
      return tokenPage(c, 'Token rotated', 'Rotated the token of', name, token);
    } catch (err) {
      return sourcesPage(c, await messageOf(c, err));
    }
  });
  app.post('/sources/:name/remove', async (c) => {
    try {
      await service.removeSource(c.req.param('name'));
    } catch (err) {
      return sourcesPage(c, await messageOf(c, err));
    }
    return c.redirect('/admin/sources', 303);
  });

  app.get('/topics', async (c) => {
    const topics = await service.topics();
    return c.html(
      page(
        'Topics',
        '/admin/topics',
        csrf(c),
        html`<h2>Topics</h2>
          ${
            topics.length === 0
              ? html`<p class="muted">No topics yet.</p>`
              : html`<table id="topics">
                  <thead>
                    <tr>
                      <th>Topic</th>
                      <th class="num">Last seq</th>
                      <th class="num">Per minute (5 min)</th>
                      <th class="num">Subscribers</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${topics.map(
                      (t) =>
                        html`<tr>
                          <td>
                            <a href="/admin/subscribers?topic=${encodeURIComponent(t.url)}"
                              ><code>${t.url}</code></a
                            >
                          </td>
                          <td class="num">${t.lastSeq}</td>
                          <td class="num">${t.ratePerMinute}</td>
                          <td class="num">${t.subscribers}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      ),
    );
  });

  app.get('/subscribers', async (c) => {
    const q = c.req.query();
    const filter = subscriptionFilter(q);
    const subs = typeof filter === 'string' ? [] : await service.subscriptions(filter);
    const opt = (name: string, values: readonly string[]) =>
      html`<select name="${name}">
        <option value="">any</option>
        ${values.map((v) => html`<option${q[name] === v ? html` selected` : ''}>${v}</option>`)}
      </select>`;
    return c.html(
      page(
        'Subscribers',
        '/admin/subscribers',
        csrf(c),
        html`<h2>Subscribers</h2>
          <form class="filters" method="get" action="/admin/subscribers">
            <label>Topic<input type="text" name="topic" value="${q.topic ?? ''}" /></label>
            <label
              >Callback origin<input
                type="text"
                name="callbackOrigin"
                value="${q.callbackOrigin ?? ''}" /></label
            ><label>State${opt('state', ['active', 'expired'])}</label>
            <label>Health${opt('health', ['healthy', 'retrying', 'failing'])}</label
            ><button type="submit">Filter</button>
          </form>
          ${typeof filter === 'string' ? html`<p class="error">${filter}</p>` : ''}${subscriptionsTable(subs)}`,
      ),
    );
  });

  const detail = async (c: Context<AdminEnv>, id: number, notice?: Html) => {
    const s = await service.subscription(id);
    return c.html(
      page(
        `Subscriber ${id}`,
        '/admin/subscribers',
        csrf(c),
        html`<h2>Subscriber ${id}</h2>
          ${notice ?? ''} ${subscriptionsTable([s])}
          <h3>Given-up deliveries</h3>
          ${
            s.givenUpItems.length === 0
              ? html`<p class="muted" id="no-given-up">None.</p>`
              : html`<table id="given-up">
                    <thead>
                      <tr>
                        <th class="num">Seq</th>
                        <th>When</th>
                        <th>Reason</th>
                      </tr>
                    </thead>
                    <tbody>
                      ${s.givenUpItems.map(
                        (g) =>
                          html`<tr>
                            <td class="num">${g.seq}</td>
                            <td>${g.at.replace('T', ' ').slice(0, 19)}</td>
                            <td>${g.reason}</td>
                          </tr>`,
                      )}
                    </tbody>
                  </table>
                  <form class="inline" method="post" action="/admin/subscribers/${id}/retry">
                    <input type="hidden" name="_csrf" value="${csrf(c)}" />
                    <p>
                      <button class="primary" id="retry-given-up" type="submit">
                        Retry given-up now
                      </button>
                    </p>
                  </form>`
          }
          <form class="inline" method="post" action="/admin/subscribers/${id}/delete">
            <input type="hidden" name="_csrf" value="${csrf(c)}" />
            <p><button class="danger" type="submit">Delete subscription</button></p>
          </form>`,
      ),
    );
  };
  type Html = Parameters<typeof page>[3];

  const subscriberId = (c: Context) => {
    const raw = c.req.param('id') ?? '';
    if (!/^\d{1,15}$/.test(raw))
      throw new AdminError('RSN_ADMIN_BAD_ID', 'the id must be a number');
    return Number(raw);
  };
  app.get('/subscribers/:id', async (c) => {
    try {
      return await detail(c, subscriberId(c));
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  app.post('/subscribers/:id/retry', async (c) => {
    try {
      const id = subscriberId(c);
      const results = await service.retryGivenUp(id);
      const delivered = results.filter((r) => r.outcome === 'delivered').length;
      return await detail(
        c,
        id,
        html`<p class="${delivered === results.length ? 'notice' : 'error'}" id="retry-result">
          Retried ${results.length}: ${delivered}
          delivered${results
            .filter((r) => r.outcome !== 'delivered')
            .map(
              (r) =>
                `, seq ${r.seq} ${r.outcome}${r.status !== undefined ? ` (HTTP ${r.status})` : r.error ? ` (${r.error})` : ''}`,
            )
            .join('')}.
        </p>`,
      );
    } catch (err) {
      return errorAnswer(c, err);
    }
  });
  app.post('/subscribers/:id/delete', async (c) => {
    try {
      await service.deleteSubscription(subscriberId(c));
    } catch (err) {
      return errorAnswer(c, err);
    }
    return c.redirect('/admin/subscribers', 303);
  });

  app.get('/rejections', async (c) => {
    const rejections = await service.rejections(100);
    return c.html(
      page(
        'Rejections',
        '/admin/rejections',
        csrf(c),
        html`<h2>Recent rejections</h2>
          <p class="muted">
            Requests the hub endpoint refused, newest first, from every hub process. URLs are shown
            as origin and short hash.
          </p>
          ${
            rejections.length === 0
              ? html`<p class="muted">None.</p>`
              : html`<table id="rejections">
                  <thead>
                    <tr>
                      <th>When</th>
                      <th class="num">Status</th>
                      <th>Kind</th>
                      <th>Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rejections.map(
                      (r) =>
                        html`<tr>
                          <td>${r.at.replace('T', ' ').slice(0, 19)}</td>
                          <td class="num">${r.status}</td>
                          <td>${r.kind}</td>
                          <td>${r.reason}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>`
          }`,
      ),
    );
  });
  // Last, so every named page matched first: the overview answers /admin and /admin/ only.
  app.get('*', async (c, next) => {
    if (c.req.path !== '/admin' && c.req.path !== '/admin/') return next();
    const [counters, subs, rejections] = await Promise.all([
      service.counters(),
      service.subscriptions(),
      service.rejections(5),
    ]);
    const attention = subs.filter((s) => s.health !== 'healthy' || s.givenUp > 0);
    return c.html(
      page(
        'Overview',
        '/admin/',
        csrf(c),
        html`<h2>Overview</h2>
          ${countersStrip(counters)}
          <h3>Subscribers needing attention</h3>
          ${attention.length === 0 ? html`<p class="muted">Every subscriber is healthy.</p>` : subscriptionsTable(attention)}
          <h3>Recent rejections</h3>
          ${
            rejections.length === 0
              ? html`<p class="muted">None.</p>`
              : html`<ul>
                  ${rejections.map((r) => html`<li><code>${r.at.slice(11, 19)}</code> ${r.status} ${r.kind}: ${r.reason}</li>`)}
                </ul>`
          }`,
      ),
    );
  });

  return app;
}
