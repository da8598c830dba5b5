// The task tools' parts that need no browser: the model key file's permissions, the chat-completions client's
// retries and errors, and the output schema helpers.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { complete, parseReply, readKey } from '../../src/tasks/model.js';
import { compileOutputSchema, leafPaths, schemaErrors } from '../../src/tasks/schema.js';
import { resolveLlm } from '../../src/config.js';
import { startFakeModel } from '../fixtures/fakeModel.js';

const dir = mkdtempSync(join(tmpdir(), 'tabwright-llm-'));
const model = await startFakeModel();
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await model.close();
});

test('the key: the variable first, else a 0600 file; a file others can read is refused', () => {
  assert.equal(readKey(dir, {}), undefined);
  writeFileSync(join(dir, 'llm-key'), 'sk-from-file\n', { mode: 0o600 });
  assert.equal(readKey(dir, {}), 'sk-from-file');
  assert.equal(readKey(dir, { TABWRIGHT_LLM_KEY: 'sk-env' }), 'sk-env');
  chmodSync(join(dir, 'llm-key'), 0o644);
  assert.throws(() => readKey(dir, {}), (e: { type: string; message: string; hint: string }) =>
    e.type === 'model_unavailable' && e.message === `The model key file ${join(dir, 'llm-key')} can be read by other users (mode 644); it is not used.` && e.hint === `Run \`chmod 600 ${join(dir, 'llm-key')}\`.` && !e.message.includes('sk-from-file'));
  rmSync(join(dir, 'llm-key'));
});

test('the config: both variables or none; the URL must be http(s), a trailing slash is dropped', () => {
  assert.equal(resolveLlm({ TABWRIGHT_LLM_URL: 'http://127.0.0.1:11434/v1' }), undefined);
  assert.deepEqual(resolveLlm({ TABWRIGHT_LLM_URL: 'http://127.0.0.1:11434/v1/', TABWRIGHT_LLM_MODEL: 'qwen3:8b' }), { url: 'http://127.0.0.1:11434/v1', model: 'qwen3:8b', timeoutMs: 120_000 });
  assert.throws(() => resolveLlm({ TABWRIGHT_LLM_URL: 'ftp://x', TABWRIGHT_LLM_MODEL: 'm' }), { type: 'invalid_arguments' });
});

test('the client retries a busy server, then answers; HTTP errors and timeouts are model_unavailable', async () => {
  const llm = { url: model.url, model: 'm', timeoutMs: 5000 };
  const signal = new AbortController().signal;
  model.script([{ status: 503 }, { calls: [{ name: 'get_text', args: { selector: 'h1' } }], content: 'thinking' }]);
  const reply = await complete(llm, dir, [{ role: 'user', content: 'hi' }], [], signal);
  assert.deepEqual(reply, { content: 'thinking', toolCalls: [{ id: reply.toolCalls[0]!.id, type: 'function', function: { name: 'get_text', arguments: '{"selector":"h1"}' } }] });
  assert.equal(model.requests.length, 2);
  model.script([{ status: 401 }]);
  await assert.rejects(complete(llm, dir, [{ role: 'user', content: 'hi' }], [], signal), (e: { type: string; message: string }) => e.type === 'model_unavailable' && e.message.startsWith('The model at http://127.0.0.1:') && e.message.includes('answered HTTP 401'));
  assert.equal(model.requests.length, 1);
  model.script([{ delayMs: 5000, content: 'late' }]);
  await assert.rejects(complete({ ...llm, timeoutMs: 300 }, dir, [{ role: 'user', content: 'hi' }], [], signal), { type: 'model_unavailable', message: `The model at ${model.url} did not answer within 0 s.` });
  assert.throws(() => parseReply('<html>', 'http://x/v1'), { type: 'model_unavailable' });
  assert.throws(() => parseReply('{"choices":[]}', 'http://x/v1'), { type: 'model_unavailable' });
});

test('output schemas: compiled within limits, errors by path, leaves as JSON pointers', () => {
  const validate = compileOutputSchema({ type: 'object', properties: { a: { type: 'number' } }, required: ['a'] });
  assert.equal(validate({ a: 'x' }), false);
  assert.deepEqual(schemaErrors(validate), ['/a must be number']);
  assert.throws(() => compileOutputSchema([]), { type: 'invalid_arguments' });
  assert.throws(() => compileOutputSchema({ type: 'object', description: 'x'.repeat(40_000) }), { type: 'invalid_arguments' });
  assert.deepEqual(leafPaths({ a: 1, b: [{ c: 'x' }, 2], 'd/e': {}, f: [] }), ['/a', '/b/0/c', '/b/1', '/d~1e', '/f']);
  assert.deepEqual(leafPaths('plain'), ['/']);
});
