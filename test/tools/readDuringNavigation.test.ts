// Reading a page while it replaces its document (src/session/nextDocument.ts): a read whose document goes away
// reads the next one, so get_text, find and get_page_context on a page that navigates once during the read answer
// from one document; on a page that replaces itself every 60 ms, faster than any read, they answer
// `document_replaced`, typed, never `internal` ("Execution context was destroyed").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useSession } from '../fixtures/harness.js';
import { call, callRaw } from '../fixtures/mcp.js';

const WORDS = 'Some words of the page to read. '.repeat(400);
const flip = (me: string, next: string) => `<!doctype html><title>${me}</title><h1>Page ${me}</h1><p>${WORDS}</p>
<script>setTimeout(() => location.replace('/${next}'), 60);</script>`;

const tw = useSession({
  pages: {
    '/one': flip('one', 'two'),
    '/two': flip('two', 'one'),
    '/first': `<!doctype html><title>first</title><h1>Page first</h1><p>${WORDS}</p><script>setTimeout(() => location.replace('/final'), 400);</script>`,
    '/final': `<!doctype html><title>final</title><h1>Page final</h1><p>${WORDS}</p>`,
  },
});

type Answer = { pageText?: string; snapshot?: string; matches?: Array<{ name: string }>; error?: { type: string; message: string; hint: string } };

/** get_text, find and get_page_context once each on `tabId`: [tool, structuredContent]. */
async function readAll(tabId: number): Promise<Array<[string, Answer]>> {
  const out: Array<[string, Answer]> = [];
  for (const [tool, args] of [['get_text', { maxChars: 200 }], ['find', { role: 'heading' }], ['get_page_context', { level: 'summary' }]] as const) {
    out.push([tool, (await callRaw(tw.client, tool, { tabId, ...args })).structuredContent as Answer]);
  }
  return out;
}

test('a page that navigates once during the reads: each answers from one document', async () => {
  for (let i = 0; i < 3; i++) {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/first` });
    for (const [tool, answer] of await readAll(tabId)) {
      assert.equal(answer.error, undefined, `${tool}: ${JSON.stringify(answer.error)}`);
      if (tool === 'get_text') assert.match(answer.pageText!, /^Page (first|final)\n/);
      if (tool === 'find') assert.match(answer.matches![0]!.name, /^Page (first|final)$/);
    }
    // The redirect has happened before the next navigate (else it would cut that navigation short).
    await call(tw.client, 'wait_for', { tabId, text: 'Page final', timeoutSec: 10 });
  }
});

test('a page that replaces itself every 60 ms: an answer from one document or document_replaced, never internal', async () => {
  const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/one` });
  for (let i = 0; i < 4; i++) {
    for (const [tool, answer] of await readAll(tabId)) {
      if (answer.error) {
        assert.equal(answer.error.type, 'document_replaced', `${tool}: ${JSON.stringify(answer.error)}`);
        assert.match(answer.error.message, new RegExp(`^Could not .+: the page of tab ${tabId} replaced its document 3 times while it was read`));
        assert.match(answer.error.hint, /wait_for/);
      } else {
        if (tool === 'get_text') assert.match(answer.pageText!, /^Page (one|two)\n/);
      }
    }
  }
});
