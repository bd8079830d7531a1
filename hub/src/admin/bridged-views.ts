// The console's view of bridged Sources (Sources the hub polls): their table, and the page shown
// once one was added. Rendered on the server like every page (views.ts).
import { html } from 'hono/html';
import type { BridgedSourceView } from './bridged.js';

type Html = ReturnType<typeof html>;

function interval(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1_000 === 0) return `${ms / 1_000} s`;
  return `${ms} ms`;
}

export function bridgedTable(bridged: readonly BridgedSourceView[], csrf: string): Html {
  if (bridged.length === 0) return html``;
  return html`<h3>Bridged Sources (polled by the hub)</h3>
    <table id="bridged">
      <thead>
        <tr>
          <th>Name</th>
          <th>Poll URL</th>
          <th>Poll interval</th>
          <th>Topic</th>
          <th>Last poll</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${bridged.map(
          (b) =>
            html`<tr data-bridged="${b.name}">
              <td><b>${b.name}</b></td>
              <td><code>${b.pollUrl}</code></td>
              <td>every ${interval(b.pollIntervalMs)}</td>
              <td><code>${b.topic}</code></td>
              <td>
                ${b.lastPollAt ?? html`<span class="muted">not yet</span>`}
                ${b.lastError ? html`<br /><span class="error">${b.lastError}</span>` : ''}
              </td>
              <td>
                <form
                  class="inline"
                  method="post"
                  action="/admin/sources/${encodeURIComponent(b.name)}/remove"
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

export function bridgedAdded(b: BridgedSourceView): Html {
  return html`<p class="notice" id="bridged-added">
      Bridged <b>${b.name}</b>: the hub polls <code>${b.pollUrl}</code> every
      ${interval(b.pollIntervalMs)} and publishes its changes on <code>${b.topic}</code>.
    </p>
    <p>
      Subscribers subscribe to that topic; the Source needs no token.
      <a href="/admin/sources">Back to Sources</a>
    </p>`;
}
