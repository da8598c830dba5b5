/**
 * Hostile pages that flood and explode (docs/reliability.md, "Hostile pages"): 5,000 WebMCP tools, a tool with a
 * 6.7 MB inputSchema, 100,000 console messages (20,000 in the CI form; and 1 MB ones), 10,000-deep nesting, 100,000 nodes, a 10 MB attribute
 * value and a 10 MB text node. Each call that reads them (list_webmcp_tools, tools/list, get_console_context,
 * get_page_context, find) answers within a generous time with text within the result cap (src/tools/resultSize.ts),
 * saying where it cut; the server's RSS stays within a bound and the next call works.
 */
import { test } from 'node:test';
import { callRaw } from '../fixtures/mcp.js';
import { until, useServer } from '../fixtures/harness.js';
import { Attacks, LAUNCH_ONLY, resultChars, rssMb } from './hostile.js';

/** What the model may get from one call: the result cap (50,000 characters) and room for the lines around it. */
const MAX_CHARS = 60_000;
/** A generous bound for one call on a flooded page (not a speed claim: a shared two-core machine). */
const MAX_MS = 60_000;
/**
 * Console messages the flood page logs: 100,000 take some 30 s to reach the server on an idle two-core machine and
 * minutes on a loaded one, past the suite's budget; the CI form logs 20,000 (the buffer keeps 1,000 either way).
 * TABWRIGHT_HOSTILE_CONSOLE=100000 runs the full flood.
 */
const CONSOLE_FLOOD = Number(process.env.TABWRIGHT_HOSTILE_CONSOLE) || 20_000;
/** The server's RSS may not pass this while the floods run (its own heap; the browser is another process). */
const RSS_BOUND_MB = 600;

const PAGES: Record<string, string> = {
  '/tools': `<!doctype html><title>Tools</title><script>
    for (let i = 0; i < 5000; i++) document.modelContext.registerTool({ name: 'tool_' + i, description: 'Tool number ' + i + ' '.repeat(200),
      inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, execute: async () => ({ content: [{ type: 'text', text: 'ran ' + i }] }) });
  </script>`,
  '/schema': `<!doctype html><title>Schema</title><script>
    const properties = {};
    for (let i = 0; i < 50000; i++) properties['p' + i] = { type: 'string', description: 'x'.repeat(90) };
    document.modelContext.registerTool({ name: 'huge', description: 'A 6.7 MB schema', inputSchema: { type: 'object', properties }, execute: async () => ({ content: [{ type: 'text', text: 'huge ran' }] }) });
    document.modelContext.registerTool({ name: 'small', description: 'A small one', inputSchema: { type: 'object' }, execute: async () => ({ content: [{ type: 'text', text: 'small ran' }] }) });
  </script>`,
  // After load, so the navigation itself is not what waits for the flood.
  '/console': `<!doctype html><title>Console</title><script>
    setTimeout(() => {
      for (let i = 0; i < ${CONSOLE_FLOOD}; i++) console.log('flood ' + i);
      for (let i = 0; i < 20; i++) console.error('huge ' + 'y'.repeat(1000000));
      console.log('last line');
    });
  </script>`,
  '/deep': `<!doctype html><title>Deep</title><body><script>
    let node = document.body;
    for (let i = 0; i < 10000; i++) { const d = document.createElement('div'); node.append(d); node = d; }
    const b = document.createElement('button'); b.textContent = 'Deepest'; node.append(b);
  </script></body>`,
  '/wide': `<!doctype html><title>Wide</title><body><script>
    const f = document.createDocumentFragment();
    for (let i = 0; i < 100000; i++) { const a = document.createElement(i % 10 ? 'span' : 'button'); a.textContent = 'n' + i; f.append(a); }
    document.body.append(f);
  </script></body>`,
  '/giant': `<!doctype html><title>Giant</title><body><script>
    const a = document.createElement('button'); a.setAttribute('aria-label', 'L'.repeat(10000000)); a.setAttribute('title', 'T'.repeat(10000000)); a.textContent = 'Giant';
    const p = document.createElement('p'); p.textContent = 'W'.repeat(10000000);
    document.body.append(a, p);
  </script></body>`,
};

const tw = useServer({ args: ['--webmcp', 'polyfill', '--auto-allow'], pages: PAGES });

// Found here and fixed: the server's RSS reached 750 MB to 1.3 GB in some runs; it was the 6.7 MB schema compiled into a
// validator when listed, not the console flood (docs/reliability.md, "Hostile pages"); schemas over 262,144 characters
// are now neither handed over nor compiled.
test('floods and explosions: every answer bounded, said cut, within time; the server\'s RSS bounded; the next call works', LAUNCH_ONLY, async () => {
  const attacks = new Attacks({ target: 'hostile-floods', what: `Pages with 5,000 WebMCP tools, a 6.7 MB inputSchema, ${CONSOLE_FLOOD.toLocaleString('en-US')} console messages and twenty 1 MB ones, 10,000-deep nesting, 100,000 nodes, a 10 MB attribute and a 10 MB text node: list_webmcp_tools, tools/list, call_webmcp_tool, get_console_context, get_page_context, find and get_text each answer within ${MAX_MS / 1000} s with at most ${MAX_CHARS.toLocaleString('en-US')} characters (a cut said in the text), the server's RSS under ${RSS_BOUND_MB} MB, and a call after each works` });
  const pid = (tw.server.transport as unknown as { pid: number | null }).pid!;
  const rssBefore = rssMb(pid);
  let rssMax = rssBefore;
  const bounded = async (name: string, args: Record<string, unknown>, expect?: RegExp) => {
    const started = Date.now();
    const res = await callRaw(tw.client, name, args).catch((error: Error) => ({ isError: true, content: [{ type: 'text', text: `threw ${error.message}` }] }));
    const ms = Date.now() - started;
    const chars = resultChars(res);
    const text = res.content.map(c => c.text ?? '').join('\n');
    rssMax = Math.max(rssMax, rssMb(pid));
    // A page that holds its renderer too long, or crashes it, gets a typed answer at once (docs/errors.md): bounded too.
    const typed = /^Error \[(timeout|page_crashed)\]/.exec(text)?.[1];
    const ok = ms < MAX_MS && chars <= MAX_CHARS && (expect ? expect.test(text) : !res.isError || typed !== undefined);
    attacks.check(`${name} ${JSON.stringify(args).slice(0, 80)}`, ok, !ok ? `${ms} ms, ${chars} chars: ${text.slice(0, 200)}` : typed ? `typed ${typed}` : /Cut at|cut|truncat|more characters|…/i.test(text) ? 'bounded, cut said' : 'bounded');
  };
  const open = async (path: string) => await bounded('navigate', { url: `${tw.origin}${path}` });

  await open('/tools');
  // On a loaded machine the 5,000 tools may take longer to hand over than a tab's listing may (5 s): skipped, said so.
  await bounded('list_webmcp_tools', {}, /tool_0\b|Tab 1 skipped: the page did not hand over its tools within 5 s/);
  const listed = await tw.server.client.listTools();
  const listChars = JSON.stringify(listed).length;
  attacks.check('tools/list on a page of 5,000 tools', listed.tools.length < 100 && listChars < 200_000, listed.tools.length < 100 ? 'not grown' : `${listed.tools.length} tools, ${listChars} chars`);
  await bounded('call_webmcp_tool', { name: 'tool_4999', arguments: {} }, /ran 4999/);

  // The 6.7 MB schema stays in the page (over the 262,144 characters a listing hands over); on a loaded machine the
  // listing may still pass the 5 s a tab has: the page's tools are then skipped, said so, and a call of one of them
  // ends typed: the page hurts only itself.
  await open('/schema');
  await bounded('list_webmcp_tools', {}, /small|Tab 1 skipped: the page did not hand over its tools within 5 s/);
  await bounded('call_webmcp_tool', { name: 'small', arguments: {} }, /small ran|^Error \[timeout\]/);
  // Its tool is refused: its schema was neither shown nor compiled.
  await bounded('call_webmcp_tool', { name: 'huge', arguments: {} }, /^Error \[(capability_unavailable|timeout)\]/);

  await open('/console');
  // The server's own buffer says when the flood is in (the page itself is busy logging).
  await until('the console flood', async () => /last line/.test(JSON.stringify((await callRaw(tw.client, 'get_console_context', { limit: 1 })).content)), 180_000, { every: 500 });
  await bounded('get_console_context', {});
  await bounded('get_console_context', { level: 'error' });

  for (const path of ['/deep', '/wide', '/giant']) {
    await open(path);
    await bounded('get_page_context', { output: 'inline' });
    await bounded('find', { role: 'button' });
    await bounded('get_text', {});
  }
  await open('/tools');
  await bounded('get_page_context', { output: 'inline' }, /Tools|tool/i);
  const rssAfter = rssMb(pid);
  attacks.check('server RSS within the bound', rssMax < RSS_BOUND_MB, `RSS ${rssMax.toFixed(0)} MB`);
  attacks.finish({ rssBeforeMb: Math.round(rssBefore), rssMaxMb: Math.round(rssMax), rssAfterMb: Math.round(rssAfter), rssBoundMb: RSS_BOUND_MB });
});
