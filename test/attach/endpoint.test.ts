// Endpoint secrets: redaction of URLs and text, header parsing, and
// the configuration of the remote connection kinds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHeaders, redactUrl, Redactor } from '../../src/browser/cdp/endpoint.js';
import { resolveConfig } from '../../src/config.js';
import { ToolError } from '../../src/errors.js';

test('redactUrl hides userinfo and query values, keeps host, path and keys', () => {
  assert.equal(redactUrl('wss://user:tok3n@grid.example:443/pw/?token=abc&region=eu'), 'wss://***@grid.example/pw/?token=***&region=***');
  assert.equal(redactUrl('http://127.0.0.1:9222'), 'http://127.0.0.1:9222/');
  assert.equal(redactUrl('not a url secret'), '***');
});

test('Redactor removes the raw URL, its secrets and header values from text', () => {
  const r = new Redactor('wss://u:p4ss@h.example/x?token=s3cr3t', { Authorization: 'Bearer abc123' });
  assert.equal(r.text('connect wss://u:p4ss@h.example/x?token=s3cr3t failed: 401 for s3cr3t, Bearer abc123'), 'connect wss://***@h.example/x?token=*** failed: 401 for ***, ***');
});

test('headers parse as "Name: value"; a bad line is invalid_arguments without the value', () => {
  assert.deepEqual(parseHeaders(['Authorization: Bearer a:b', 'X-Key:v']), { Authorization: 'Bearer a:b', 'X-Key': 'v' });
  assert.throws(() => parseHeaders(['no colon secret']), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments' && !e.message.includes('secret'));
});

test('resolveConfig: cdp and playwright-server, flags over environment, exclusive endpoints', () => {
  const cdp = resolveConfig({ cdpEndpoint: 'http://127.0.0.1:9222', cdpHeader: ['A: b'] }, {});
  assert.deepEqual(cdp.remote, { kind: 'cdp', endpoint: 'http://127.0.0.1:9222', headers: { A: 'b' }, newContext: false, connectTimeoutMs: 15_000 });
  const ws = resolveConfig({}, { TABWRIGHT_WS_ENDPOINT: 'ws://127.0.0.1:3000/', TABWRIGHT_CDP_HEADERS: 'A: 1\nB: 2', TABWRIGHT_CONNECT_TIMEOUT_MS: '5000' });
  assert.deepEqual(ws.remote, { kind: 'playwright-server', endpoint: 'ws://127.0.0.1:3000/', headers: { A: '1', B: '2' }, newContext: true, connectTimeoutMs: 5000 });
  assert.equal(resolveConfig({ cdpEndpoint: 'http://h:1' }, { TABWRIGHT_WS_ENDPOINT: 'ws://x:2/' }).remote?.kind, 'cdp');
  assert.equal(resolveConfig({}, {}).remote, undefined);
  assert.throws(() => resolveConfig({ cdpEndpoint: 'http://h:1', wsEndpoint: 'ws://h:2' }, {}), /exclude each other/);
  assert.throws(() => resolveConfig({ cdpEndpoint: 'ftp://user:pw@h/?t=zzz' }, {}), (e: unknown) => e instanceof ToolError && e.type === 'invalid_arguments' && !e.message.includes('zzz') && !e.message.includes(':pw'));
  // --isolate-sessions on the launch connection uses a temporary profile.
  assert.equal(resolveConfig({ isolateSessions: true }, {}).isolated, true);
  assert.throws(() => resolveConfig({ isolateSessions: true, userDataDir: '/tmp/p' }, {}), /exclude each other/);
  assert.throws(() => resolveConfig({ isolateSessions: true }, { TABWRIGHT_SHARED_CONTEXT: '1' }), /--isolate-sessions and --shared-context exclude each other/);
  assert.equal(resolveConfig({ sharedContext: true }, {}).sharedContext, true);
  assert.equal(resolveConfig({}, { TABWRIGHT_SHARED_CONTEXT: '1' }).sharedContext, true);
  assert.equal(resolveConfig({}, {}).sharedContext, false);
});
