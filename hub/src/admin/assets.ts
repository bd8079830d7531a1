// The console's only static files: one stylesheet and one small script. Served from /admin/static/
// so the Content-Security-Policy can forbid every inline style and script.

export const CONSOLE_CSS = `
:root { --fg: #1d2430; --muted: #5d6b7e; --line: #d9dee6; --bg: #f6f7f9; --ok: #17803d; --warn: #a35f00; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 24px; background: #1d2430; color: #fff; }
header h1 { font-size: 16px; margin: 0; }
header nav a { color: #cfd6e2; text-decoration: none; margin-right: 16px; }
header nav a.current, header nav a:hover { color: #fff; border-bottom: 2px solid #7fb2ff; }
header form { margin-left: auto; }
main { padding: 20px 24px; max-width: 1200px; }
h2 { font-size: 18px; margin: 8px 0 12px; }
h3 { font-size: 15px; margin: 20px 0 8px; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f5; font-weight: 600; font-size: 13px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; word-break: break-all; }
.counters { display: flex; flex-wrap: wrap; gap: 12px; margin-bottom: 20px; }
.counter { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.counter b { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
.counter span { color: var(--muted); font-size: 12px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; }
.badge.healthy { background: var(--ok); } .badge.retrying { background: var(--warn); } .badge.failing { background: var(--bad); }
.badge.expired { background: var(--muted); }
.muted { color: var(--muted); }
.error { background: #fde8e6; border: 1px solid #f3b4ad; padding: 8px 12px; border-radius: 4px; margin-bottom: 12px; }
.notice { background: #e7f5ec; border: 1px solid #a6d8b7; padding: 8px 12px; border-radius: 4px; margin-bottom: 12px; }
.secret { font-size: 14px; background: #fff7d6; padding: 6px 8px; border: 1px dashed #c9a400; display: inline-block; }
form.inline { display: inline; }
form.card { background: #fff; border: 1px solid var(--line); padding: 12px 14px; margin-top: 16px; max-width: 640px; }
form.card label { display: block; margin: 8px 0 2px; font-weight: 600; font-size: 13px; }
form.card input[type=text], form.card input[type=password], form.card textarea { width: 100%; padding: 6px; font: inherit; }
form.filters { display: flex; gap: 8px; align-items: end; margin-bottom: 12px; flex-wrap: wrap; }
form.filters label { font-size: 12px; color: var(--muted); display: flex; flex-direction: column; }
button { font: inherit; padding: 4px 12px; cursor: pointer; border: 1px solid #9aa6b8; border-radius: 4px; background: #fff; }
button.danger { border-color: var(--bad); color: var(--bad); }
button.primary { background: #2457c5; border-color: #2457c5; color: #fff; }
.login { max-width: 420px; margin: 80px auto; }
`;

// Progressive enhancement: the counters and health badges refresh every few seconds from the JSON
// API (same-origin GETs with the session cookie). Without the script the page is complete as served.
export const CONSOLE_JS = `
(function () {
  'use strict';
  var counters = document.querySelectorAll('[data-counter]');
  var badges = document.querySelectorAll('[data-health-for]');
  if (counters.length === 0 && badges.length === 0) return;
  function refresh() {
    if (counters.length) fetch('/admin/api/counters', { credentials: 'same-origin' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (c) {
      if (!c) return;
      counters.forEach(function (el) { var v = c[el.getAttribute('data-counter')]; if (v !== undefined) el.textContent = String(v); });
    }).catch(function () {});
    if (badges.length) fetch('/admin/api/subscriptions', { credentials: 'same-origin' }).then(function (r) { return r.ok ? r.json() : null; }).then(function (d) {
      if (!d) return;
      var byId = {};
      d.subscriptions.forEach(function (s) { byId[String(s.id)] = s; });
      badges.forEach(function (el) {
        var s = byId[el.getAttribute('data-health-for')];
        if (!s) return;
        el.textContent = s.health; el.className = 'badge ' + s.health; el.setAttribute('data-health', s.health);
        var row = el.closest('tr');
        if (!row) return;
        row.querySelectorAll('[data-field]').forEach(function (f) {
          var v = s[f.getAttribute('data-field')];
          f.textContent = v === undefined || v === null ? '' : String(v);
        });
      });
    }).catch(function () {});
  }
  setInterval(refresh, 2000);
})();
`;
