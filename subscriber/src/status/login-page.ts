// The status page's login form (statusToken set, no session): one password field posted to
// /status/login. It never shows what was typed; a failed login only says so.
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export function loginPage(failed: boolean): HtmlEscapedString | Promise<HtmlEscapedString> {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>rsnotify subscriber status: log in</title>
      </head>
      <body>
        <h1>rsnotify subscriber status</h1>
        ${failed ? html`<p role="alert" id="login-error">That is not the status token.</p>` : ''}
        <form method="post" action="/status/login">
          <label
            >Status token (<code>statusToken</code> in the subscriber's config)
            <input type="password" name="token" autocomplete="current-password" required />
          </label>
          <button type="submit">Log in</button>
        </form>
        <p>Tools send <code>Authorization: Bearer &lt;statusToken&gt;</code> instead.</p>
      </body>
    </html>`;
}
