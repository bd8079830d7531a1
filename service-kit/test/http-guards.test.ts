// The HTTP guards both daemons share: the answer to a request head Node's parser refused
// (RFC 6585 §5: 431; RFC 9112 §6.1: 501 for an unknown transfer coding, 400 for TE with CL), the
// cross-site test for state changes made from a browser, and the path a request targets (both
// daemons route their hot POST by it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import {
  answerClientErrors,
  clientErrorAnswer,
  clientErrorResponse,
  framingProblem,
  targetPath,
  isCrossSiteRequest,
  type ClientErrorAnswer,
} from '../src/index.js';

test('clientErrorAnswer: one status per parser refusal, the parser code as the reason', () => {
  const rows: [string | undefined, string | undefined, number, string][] = [
    ['HPE_HEADER_OVERFLOW', 'Header overflow', 431, 'HPE_HEADER_OVERFLOW'],
    ['ERR_HTTP_REQUEST_TIMEOUT', undefined, 408, 'ERR_HTTP_REQUEST_TIMEOUT'],
    [
      'HPE_INVALID_TRANSFER_ENCODING',
      'Invalid transfer-encoding',
      501,
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
    [
      'HPE_INVALID_TRANSFER_ENCODING',
      "Transfer-Encoding can't be present with Content-Length",
      400,
      'HPE_INVALID_TRANSFER_ENCODING',
    ],
    ['HPE_INVALID_HEADER_TOKEN', 'Invalid header token', 400, 'HPE_INVALID_HEADER_TOKEN'],
    [undefined, undefined, 400, 'client_error'],
  ];
  for (const [code, reason, status, label] of rows) {
    const a = clientErrorAnswer(code, reason);
    assert.equal(a.status, status, `${code} ${reason}`);
    assert.equal(a.reason, label);
  }
  assert.equal(
    clientErrorResponse(clientErrorAnswer('HPE_HEADER_OVERFLOW', undefined)),
    'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
  );
});

test('framingProblem: RFC 9112 §3.2 two Host headers, §6.1 a transfer coding other than chunked (table)', () => {
  const rows: [string[], string | undefined, number | undefined, string | undefined][] = [
    [['Host', 'a.test'], undefined, undefined, undefined],
    [['Host', 'a.test', 'host', 'b.test'], undefined, 400, 'duplicate_host'],
    [['HOST', 'a.test', 'Host', 'a.test'], undefined, 400, 'duplicate_host'],
    [['Host', 'a.test', 'X-Host', 'b.test'], undefined, undefined, undefined],
    [['Host', 'a.test'], 'chunked', undefined, undefined],
    [['Host', 'a.test'], ' Chunked ', undefined, undefined],
    [['Host', 'a.test'], 'gzip', 501, 'transfer_encoding'],
    [['Host', 'a.test'], 'gzip, chunked', 501, 'transfer_encoding'],
    // Both at once: the Host check comes first.
    [['Host', 'a.test', 'Host', 'b.test'], 'gzip', 400, 'duplicate_host'],
  ];
  for (const [rawHeaders, te, status, kind] of rows) {
    const p = framingProblem({
      rawHeaders,
      headers: te === undefined ? {} : { 'transfer-encoding': te },
    });
    const what = `${rawHeaders.join(' ')} / ${te}`;
    assert.equal(p?.status, status, what);
    assert.equal(p?.kind, kind, what);
  }
  assert.equal(
    framingProblem({ rawHeaders: [], headers: { 'transfer-encoding': 'gzip' } })?.text,
    'Transfer-Encoding "gzip" is not supported (only chunked)',
  );
});

test('isCrossSiteRequest: safe methods pass; Sec-Fetch-Site decides, else Origin against Host', () => {
  const rows: [Parameters<typeof isCrossSiteRequest>[0], boolean][] = [
    [{ method: 'GET', secFetchSite: 'cross-site' }, false],
    [{ method: 'POST', secFetchSite: 'same-origin' }, false],
    [{ method: 'POST', secFetchSite: 'none' }, false],
    [{ method: 'POST', secFetchSite: 'same-site' }, true],
    [{ method: 'POST', secFetchSite: 'cross-site', origin: 'http://a.test', host: 'a.test' }, true],
    [{ method: 'POST', origin: 'http://a.test:8091', host: 'a.test:8091' }, false],
    [{ method: 'POST', origin: 'http://evil.test', host: 'a.test' }, true],
    [{ method: 'POST', origin: 'null', host: 'a.test' }, true],
    [{ method: 'POST', origin: 'not a url', host: 'a.test' }, true],
    [{ method: 'POST', origin: 'http://a.test' }, true],
    // curl and other tools send neither: not a browser, nothing to forge.
    [{ method: 'POST', host: 'a.test' }, false],
  ];
  for (const [req, crossSite] of rows)
    assert.equal(isCrossSiteRequest(req), crossSite, JSON.stringify(req));
});

test('answerClientErrors: a head past the header limit gets its 431 on the socket, and the hook sees it', async (t) => {
  const server = createServer({ maxHeaderSize: 1024 }, (_req, res) => res.end());
  const seen: [ClientErrorAnswer, string | undefined][] = [];
  answerClientErrors(server, { rejected: (a, code) => seen.push([a, code]) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.end(`GET / HTTP/1.1\r\nHost: a.test\r\nX-Big: ${'x'.repeat(4096)}\r\n\r\n`);
  let answer = '';
  for await (const chunk of socket) answer += String(chunk);
  assert.equal(answer, clientErrorResponse(clientErrorAnswer('HPE_HEADER_OVERFLOW', undefined)));
  assert.deepEqual(seen, [
    [
      { status: 431, text: 'Request Header Fields Too Large', reason: 'HPE_HEADER_OVERFLOW' },
      'HPE_HEADER_OVERFLOW',
    ],
  ]);
});

test('targetPath: the path of an origin-form or absolute-form request target (table)', () => {
  const rows: [string | undefined, string | undefined][] = [
    ['/hub', '/hub'],
    ['/hub?x=1', '/hub'],
    ['/hub/?x', '/hub/'],
    ['/', '/'],
    ['http://127.0.0.1:8080/hub?x=1', '/hub'],
    ['https://hub.test/a/hub', '/a/hub'],
    ['*', undefined],
    ['hub.test:443', undefined],
    ['mailto:hub@example.org', undefined],
    [undefined, undefined],
  ];
  for (const [url, path] of rows) assert.equal(targetPath(url), path, String(url));
});
