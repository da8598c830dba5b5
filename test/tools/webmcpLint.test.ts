// lint_webmcp_tools (src/tools/webmcpLint.ts, src/webmcp/lintRules.ts; docs/webmcp-dev.md "Lint") on a small app of
// our own with a good and a bad tool for every rule, under native WebMCP and the polyfill: each rule fires on its bad
// case and stays quiet on the good one, with the exact finding; the probes run in a throwaway context and leave the
// tab's own storage alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { until, useServer } from '../fixtures/harness.js';
import { call, callRaw, evaluate, TEST_CONNECTION } from '../fixtures/mcp.js';

/** The app: served at /app and, as a single-page app's fallback, at /app/other. */
const APP = `<!doctype html><title>Lint app</title>
<nav><a id="to-other" href="/app/other">Other</a></nav>
<main id="view"></main>
<form toolname="good_search" tooldescription="Search the catalog by keyword" toolautosubmit><label>Keyword <input name="q"></label><button>Go</button></form>
<form toolname="contact_form" tooldescription="Write to the shop"><input name="message"><input name="topic" toolparamdescription="What it is about"><button>Send</button></form>
<form toolname="purchase_form" tooldescription="Purchase everything in the cart" toolautosubmit><label>Card <input name="card"></label><button>Buy</button></form>
<form toolname="dup_form" tooldescription="The first of two"><label>A <input name="a"></label><button>Go</button></form>
<form toolname="dup_form" tooldescription="The second of two"><label>B <input name="b"></label><button>Go</button></form>
<form toolname="undescribed_form"><label>C <input name="c"></label><button>Go</button></form>
<script type="module">
  const mc = document.modelContext || navigator.modelContext;
  const ignore = () => {};
  const text = t => ({ content: [{ type: 'text', text: t }] });
  const wait = (ms, signal) => new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
  });
  const object = { type: 'object', properties: {} };
  mc.registerTool({ name: 'bad name!', description: 'A name with a space', execute: () => 'x' }).catch(ignore);
  mc.registerTool({ name: 'no_description', description: '', execute: () => 'x' }).catch(ignore);
  mc.registerTool({ name: 'bad_schema', description: 'Takes a bare string', inputSchema: { type: 'string' }, execute: () => 'x' }).catch(ignore);
  mc.registerTool({ name: 'delete_account', description: 'Close the user account', inputSchema: object, execute: () => 'closed' });
  mc.registerTool({ name: 'delete_item', description: 'Remove an item from the list', inputSchema: object, annotations: { consequentialHint: true }, execute: () => 'removed' });
  mc.registerTool({ name: 'list_products', description: 'List the products in the catalog', inputSchema: object, annotations: { debugging: true }, execute: () => 'tea, mug' });
  mc.registerTool({ name: 'dump_state', description: 'Developer tool: the app state as JSON', inputSchema: object, annotations: { debugging: true }, execute: () => text('{}') });
  mc.registerTool({ name: 'inspect_cache', description: 'The cache entries', inputSchema: object, execute: () => text('[]') });
  mc.registerTool({ name: 'bad_readonly', description: 'Reads the counter', inputSchema: { type: 'object', properties: { who: { type: 'string' } }, required: ['who'] }, annotations: { readOnlyHint: true },
    execute: ({ who }) => { localStorage.setItem('seen', who); document.getElementById('view').textContent = 'seen by ' + who; return 'ok'; } });
  mc.registerTool({ name: 'good_readonly', description: 'Reads the title', inputSchema: object, annotations: { readOnlyHint: true }, execute: () => document.title });
  mc.registerTool({ name: 'slow_ignores', description: 'A slow lookup', inputSchema: object, annotations: { readOnlyHint: true }, execute: async () => { await wait(3000); return 'late'; } });
  mc.registerTool({ name: 'slow_honors', description: 'A slow lookup that stops', inputSchema: object, annotations: { readOnlyHint: true }, execute: async (_input, { signal } = {}) => { await wait(3000, signal); return 'late'; } });
  // Route tools: only on /app; the good one is unregistered when the route is left, the bad one stays.
  const route = new AbortController();
  if (location.pathname === '/app') {
    mc.registerTool({ name: 'route_tool', description: 'Acts on this route', inputSchema: object, execute: () => 'x' });
    mc.registerTool({ name: 'route_tool_good', description: 'Acts on this route too', inputSchema: object, execute: () => 'x' }, { signal: route.signal });
  }
  document.getElementById('to-other').addEventListener('click', event => {
    event.preventDefault();
    history.pushState({}, '', event.currentTarget.href);
    route.abort();
    document.getElementById('view').textContent = 'other';
  });
</script>`;

const MODES = ['native', 'polyfill'] as const;

type Finding = { rule: string; tool: string; severity: string; why: string; fix: string };

for (const mode of MODES) {
  const tw = useServer({ args: ['--webmcp', mode, '--toolsets', 'core,webmcp-dev'], pages: { '/app': APP, '/app/other': APP } });

  test(`${mode}: every rule fires on its bad tool and stays quiet on the good one`, async () => {
    const { tabId } = await call<{ tabId: number }>(tw.client, 'navigate', { url: `${tw.origin}/app` });
    // The lint checks what the page registered so far: wait until the app's module script has registered all 16.
    await until('the app registered its tools', async () => (await call<{ tools: unknown[] }>(tw.client, 'list_webmcp_tools', { tabId })).tools.length === 16, 15_000);
    const raw = await callRaw(tw.client, 'lint_webmcp_tools', { tabId });
    const lint = raw.structuredContent as unknown as { tools: string[]; findings: Finding[]; probes: Record<string, unknown> };
    // Through the extension the probes do not run (docs/webmcp-dev.md, "Probes"): the rules without probes still apply.
    const probed = TEST_CONNECTION !== 'extension';
    const PROBE_RULES = new Set(['readonly-mutates', 'route-lingering', 'abort-ignored']);
    assert.deepEqual(lint.findings.map(f => `${f.severity} ${f.rule} ${f.tool}`), [
      'error name-invalid bad name!',
      'error readonly-mutates bad_readonly',
      'error schema-not-object bad_schema',
      'error name-duplicate dup_form',
      'error description-empty no_description',
      'error description-empty undescribed_form',
      'warning form-param-undescribed contact_form',
      'warning consequential-missing delete_account',
      'warning debugging-missing inspect_cache',
      'warning debugging-misused list_products',
      'warning form-autosubmit-consequential purchase_form',
      'warning route-lingering route_tool',
      'warning abort-ignored slow_ignores',
    ].filter(line => probed || !PROBE_RULES.has(line.split(' ')[1]!)), JSON.stringify(lint.findings, null, 1));
    const byRule = Object.fromEntries(lint.findings.map(f => [f.rule, f]));
    assert.equal(byRule['form-param-undescribed']!.why, 'Field "message" of the form has neither a <label> nor toolparamdescription: the agent sees only the field\'s name.');
    const text = raw.content.map(c => (c as { text: string }).text).join('\n');
    if (!probed) {
      assert.deepEqual(lint.probes, { called: [], notRun: 'through the companion extension the probes would open contexts in your own browser, and pages of contexts opened there at once were seen to mix (one probe\'s call ran in another\'s page)' });
      assert.ok(text.startsWith(`10 findings for the 16 WebMCP tools of tab ${tabId} (${tw.origin}/app):\n- [name-invalid] error "bad name!": The browser refused registerTool`), text);
      assert.ok(text.endsWith(`Not probed: ${lint.probes.notRun}; readonly-mutates, abort-ignored and route-lingering were not checked.`), text);
      return;
    }
    assert.equal(byRule['readonly-mutates']!.why, 'It declares readOnlyHint, but calling it in a throwaway context changed the DOM, localStorage. Agents and consent rules run read-only tools without asking.');
    assert.equal(byRule['route-lingering']!.why, 'It stays registered after the app moves from /app to /app/other in the page (a link click), though loading /app/other afresh does not register it: it belongs to the route it was registered on.');
    assert.equal(byRule['abort-ignored']!.fix, 'Take execute(input, { signal }) and pass the signal to fetch() and your own waits (reject with signal.reason when it aborts).');
    assert.deepEqual(lint.probes, { called: ['bad_readonly', 'good_readonly', 'slow_honors', 'slow_ignores'], route: { from: '/app', to: '/app/other' } });
    // The text says the same, each finding on its line, complete.
    assert.ok(text.startsWith(`13 findings for the 16 WebMCP tools of tab ${tabId} (${tw.origin}/app):\n- [name-invalid] error "bad name!": The browser refused registerTool`), text);
    assert.ok(text.includes(`- [route-lingering] warning "route_tool": ${byRule['route-lingering']!.why} Fix: ${byRule['route-lingering']!.fix}`), text);
    assert.ok(text.endsWith('Probed in a throwaway context by calling the readOnlyHint tools: bad_readonly, good_readonly, slow_honors, slow_ignores (other tools are never called).\nRoute change probed: /app → /app/other by a link click.'), text);
    // The probes ran elsewhere: the tab's own storage and page are as they were.
    assert.deepEqual(await evaluate(tw.client, '[localStorage.getItem("seen"), location.pathname, document.getElementById("view").textContent]', tabId), [null, '/app', '']);
  });
}
