/**
 * The calls of the chaos suite (docs/reliability.md, "Chaos"): one per tool kind that waits on a page, each
 * really in progress when a fault lands: a navigation the site holds, an input that auto-waits on a disabled
 * element, a wait for text never shown, code or a WebMCP tool that never settles, and reads of a page whose main
 * thread is busy in a long loop. Used by chaosCalls.test.ts.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { call, refOf, snapshot, type ToolClient } from '../fixtures/mcp.js';
import type { Site } from '../fixtures/site.js';

/** Every call's own limit, ms: a fault must be answered well before it. */
export const CALL_TIMEOUT_MS = 30_000;

/** One kind of call: the page it runs on and how to start it there. */
export interface ChaosKind {
  tool: string;
  /** The victim tab's page, on the site. */
  path: string;
  /** The page's main thread is busy in a loop while the call runs (reads that wait for it). */
  busy?: boolean;
  /**
   * What closing the tab answers instead of tab_not_found, and why. `tabClosed`: a success with `tabClosed: true` and
   * no result.
   */
  onClose?: { answer: 'tabClosed'; why: string };
  /** Readies `tabId` just before the call (refs, a busy loop) and returns the call's arguments. */
  prepare(client: ToolClient, tabId: number, origin: string): Promise<Record<string, unknown>>;
}

const sec = CALL_TIMEOUT_MS / 1000;

/** Starts a 20 s loop on the tab's main thread and returns once it runs (a timer starts it after execute answers). */
async function busy(client: ToolClient, tabId: number): Promise<void> {
  await call(client, 'execute', { tabId, code: 'setTimeout(() => { const end = Date.now() + 20000; while (Date.now() < end); }, 0); return 1' });
  await sleep(300);
}

/** A ref of the victim page's snapshot. */
async function refIn(client: ToolClient, tabId: number, role: string, name: string): Promise<string> {
  return refOf((await snapshot(client, { tabId })).snapshot, role, name);
}

const held = new Set<ServerResponse>();

/** The pages and routes the kinds use, on `site`. */
export function serveChaosPages(site: Site): void {
  site.page('/idle', '<!doctype html><title>Idle</title><h1>Idle page</h1><p>Nothing moves here.</p>');
  site.page('/opener', '<!doctype html><title>Opener</title><h1>Opener</h1>');
  site.page('/locked', `<!doctype html><title>Locked</title>
    <button disabled>Locked button</button>
    <label>Locked field <input disabled></label>
    <label>Locked select <select disabled><option>one</option><option>two</option></select></label>`);
  site.page('/webmcp', `<!doctype html><title>Tools</title><h1>Tools</h1><script>
    document.modelContext.registerTool({ name: 'hang', description: 'Never answers', inputSchema: { type: 'object', properties: {} },
      execute: () => new Promise(() => {}) });
  </script>`);
  // Never answers (until the site closes): a navigation to it is held.
  const hold = (_req: IncomingMessage, res: ServerResponse) => {
    held.add(res);
    res.on('close', () => held.delete(res));
  };
  site.route('/held', hold);
  // Answers its first load, holds every later one (a reload).
  const served = new Set<string>();
  site.route('/reloadable', (req, res) => {
    if (served.has(req.url!)) return hold(req, res);
    served.add(req.url!);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Reloadable</title><h1>Loaded once</h1>');
  });
}

let reloads = 0;

/** The kinds, in the order they run. */
export const KINDS: ChaosKind[] = [
  { tool: 'navigate', path: '/idle', prepare: async (_c, tabId, origin) => ({ tabId, url: `${origin}/held`, timeoutMs: CALL_TIMEOUT_MS }) },
  { tool: 'reload_tab', path: '/idle', prepare: async (c, tabId, origin) => {
    await call(c, 'navigate', { tabId, url: `${origin}/reloadable?n=${++reloads}` });
    return { tabId, timeoutMs: CALL_TIMEOUT_MS };
  } },
  { tool: 'click', path: '/locked', prepare: async (c, tabId) => ({ ref: await refIn(c, tabId, 'button', 'Locked button'), timeoutMs: CALL_TIMEOUT_MS }) },
  { tool: 'type', path: '/locked', prepare: async (c, tabId) => ({ ref: await refIn(c, tabId, 'textbox', 'Locked field'), text: 'x', timeoutMs: CALL_TIMEOUT_MS }) },
  { tool: 'fill_form', path: '/locked', prepare: async (c, tabId) => ({ fields: [{ ref: await refIn(c, tabId, 'textbox', 'Locked field'), value: 'x' }], timeoutMs: CALL_TIMEOUT_MS }) },
  { tool: 'select_option', path: '/locked', prepare: async (c, tabId) => ({ ref: await refIn(c, tabId, 'combobox', 'Locked select'), values: ['two'], timeoutMs: CALL_TIMEOUT_MS }) },
  { tool: 'wait_for', path: '/idle', prepare: async (_c, tabId) => ({ tabId, text: 'never shown', timeoutSec: sec }) },
  { tool: 'execute', path: '/idle', prepare: async (_c, tabId) => ({ tabId, code: 'await new Promise(() => {})', timeoutSec: sec }) },
  { tool: 'call_webmcp_tool', path: '/webmcp', onClose: { answer: 'tabClosed', why: 'Chromium\'s native WebMCP loses the result of a tool whose window closes, so a tool that closed its own window and one whose window was closed under it look the same: both answer tabClosed: true with no result' }, prepare: async (_c, tabId) => ({ tabId, name: 'hang', arguments: {}, timeoutSec: sec }) },
  { tool: 'pick_elements', path: '/idle', prepare: async (_c, tabId) => ({ tabId, timeoutSec: sec }) },
  { tool: 'get_page_context', path: '/idle', busy: true, prepare: async (c, tabId) => (await busy(c, tabId), { tabId, output: 'inline' }) },
  { tool: 'take_screenshot', path: '/idle', busy: true, prepare: async (c, tabId) => (await busy(c, tabId), { tabId, output: 'inline' }) },
  { tool: 'get_text', path: '/idle', busy: true, prepare: async (c, tabId) => (await busy(c, tabId), { tabId }) },
  { tool: 'find', path: '/idle', busy: true, prepare: async (c, tabId) => (await busy(c, tabId), { tabId, text: 'Nothing moves' }) },
  { tool: 'press_key', path: '/idle', busy: true, prepare: async (c, tabId) => (await busy(c, tabId), { tabId, key: 'Tab' }) },
];

/** Ends the held responses (before the site closes). */
export function releaseHeld(): void {
  for (const res of held) res.destroy();
}
