/**
 * The probes of `lint_webmcp_tools` (docs/webmcp-dev.md, "Lint"): they load the tab's URL in throwaway browser
 * contexts (new, empty BrowserContexts of the same browser, one per probe, with the session's in-page runtime,
 * closed afterwards; six at a time), so the user's page, cookies and storage are never touched, and:
 *
 * - call each `readOnlyHint` tool once (arguments made from its schema's required fields) and diff the DOM,
 *   localStorage, sessionStorage and document.cookie before and after (`readonly-mutates`); a DOM that changes by
 *   itself is not compared;
 * - cancel such a call still running after CANCEL_AFTER_MS and check 0.5 s later whether the page's `execute` has
 *   finished (`abort-ignored`), seen through a registerTool wrapper this module's init script puts in the page;
 * - click a same-origin link to another path and, when the document stays (a single-page app's route change),
 *   compare the tools left with those a fresh load of the new URL registers (`route-lingering`).
 *
 * Tools without readOnlyHint are never called: a probe must not buy, send or delete anything.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { abortFinding, lingeringFinding, mutationFinding, type LintFinding, type LintTool } from '../webmcp/lintRules.js';
import { sleep } from '../util/wait.js';

/** A readOnlyHint call still running after this long (ms) is cancelled. */
export const CANCEL_AFTER_MS = 1_000;
/** How long (ms) the probes wait after a load or a click for the page to register its tools. */
const SETTLE_MS = 300;
/** At most this many readOnlyHint tools are called; the others are named in `notCalled`. */
const MAX_CALLED = 12;

/**
 * Why the probes do not run through the companion extension: it reaches the user's own browser, where throwaway
 * contexts would open there, and the pages of contexts opened at once were seen to mix through its relay (one
 * probe's call ran in another probe's page), which would report tools for what others did.
 */
export const EXTENSION_REASON = 'through the companion extension the probes would open contexts in your own browser, and pages of contexts opened there at once were seen to mix (one probe\'s call ran in another\'s page)';

/** What the probes did and did not check, for the result. */
export interface ProbeReport {
  /** Tools called (readOnlyHint ones). */
  called: string[];
  /** readOnlyHint tools past MAX_CALLED, not called. */
  notCalled?: string[];
  /** The route change tried: from and to paths, or why none was. */
  route?: { from: string; to: string } | { skipped: string };
  /** Why the probes did not run at all. */
  notRun?: string;
}

/** Wraps registerTool so the probe can tell when a tool's execute has finished (kept on the page's window). */
const PROBE_SCRIPT = `(() => {
  const runs = {};
  Object.defineProperty(window, '__tabwrightLintRuns', { value: runs });
  const wrap = target => {
    const original = target && target.registerTool;
    if (typeof original !== 'function' || original.__tabwrightLint) return;
    const registerTool = function registerTool(tool, ...rest) {
      if (tool && typeof tool === 'object' && typeof tool.execute === 'function') {
        const execute = tool.execute;
        const name = String(tool.name);
        tool = Object.assign({}, tool, { execute(input, options) {
          const run = runs[name] = { settled: false };
          const done = () => { run.settled = true; };
          let out;
          try { out = execute.call(this, input, options); } catch (error) { done(); throw error; }
          Promise.resolve(out).then(done, done);
          return out;
        } });
      }
      return original.call(this, tool, ...rest);
    };
    registerTool.__tabwrightLint = true;
    try { target.registerTool = registerTool; } catch {}
  };
  for (const mc of new Set([document.modelContext, navigator.modelContext])) {
    if (!mc) continue;
    wrap(Object.getPrototypeOf(mc));
    if (Object.prototype.hasOwnProperty.call(mc, 'registerTool')) wrap(mc);
  }
})();`;

/** Arguments for a probe call: each required property of an object schema, with a plain value of its type. */
export function sampleArguments(schema: unknown): Record<string, unknown> {
  const s = schema as { properties?: Record<string, Record<string, unknown>>; required?: unknown } | undefined;
  const out: Record<string, unknown> = {};
  const required = Array.isArray(s?.required) ? s.required.filter((r): r is string => typeof r === 'string') : [];
  for (const name of required) {
    const p = s?.properties?.[name] ?? {};
    if (Array.isArray(p.enum) && p.enum.length) out[name] = p.enum[0];
    else if ('const' in p) out[name] = p.const;
    else if (p.type === 'integer' || p.type === 'number') out[name] = typeof p.minimum === 'number' ? p.minimum : 1;
    else if (p.type === 'boolean') out[name] = false;
    else if (p.type === 'array') out[name] = [];
    else if (p.type === 'object') out[name] = {};
    else out[name] = 'test';
  }
  return out;
}

interface PageState { dom: string; local: string; session: string; cookies: string }
const STATE = '({ dom: document.documentElement.outerHTML, local: JSON.stringify(Object.entries(localStorage)), session: JSON.stringify(Object.entries(sessionStorage)), cookies: document.cookie })';
const TOOL_NAMES = 'Promise.resolve((document.modelContext || navigator.modelContext)?.getTools?.() ?? []).then(tools => tools.map(t => t.name).sort())';

async function load(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: 'load', timeout: 15_000 });
  await sleep(SETTLE_MS);
  return page;
}

/** Calls `name` in the page's main world, cancelling it after CANCEL_AFTER_MS; says whether it finished, and if not whether execute settled 0.5 s after the cancel. */
async function callOnce(page: Page, name: string, input: Record<string, unknown>): Promise<{ finished: boolean; settledAfterAbort?: boolean; missing?: boolean }> {
  return await page.evaluate(async ([name, input, cancelAfter]) => {
    const mc = (document as unknown as { modelContext?: any }).modelContext ?? (navigator as unknown as { modelContext?: any }).modelContext;
    const tool = ((await mc?.getTools?.()) ?? []).find((t: { name: string }) => t.name === name);
    if (!tool) return { finished: false, missing: true };
    const controller = new AbortController();
    const call = Promise.resolve().then(() => mc.executeTool(tool, input, { signal: controller.signal })).then(() => 'done', () => 'done');
    const first = await Promise.race([call, new Promise(resolve => setTimeout(() => resolve('timer'), cancelAfter))]);
    if (first !== 'timer') return { finished: true };
    controller.abort();
    await new Promise(resolve => setTimeout(resolve, 500));
    const run = (window as unknown as { __tabwrightLintRuns?: Record<string, { settled: boolean }> }).__tabwrightLintRuns?.[name as string];
    return { finished: false, settledAfterAbort: run ? run.settled : true };
  }, [name, input, CANCEL_AFTER_MS] as const);
}

/** The readOnlyHint probe of one tool: findings for what its call changed and for a cancel it ignored. */
async function probeReadOnly(context: BrowserContext, url: string, tool: LintTool): Promise<LintFinding[]> {
  const page = await load(context, url);
  try {
    const before = await page.evaluate(STATE) as PageState;
    await sleep(150);
    const again = await page.evaluate(STATE) as PageState;
    const outcome = await callOnce(page, tool.name, sampleArguments(tool.inputSchema));
    if (outcome.missing) return [];
    await sleep(200);
    const after = await page.evaluate(STATE) as PageState;
    const changes: string[] = [];
    if (before.dom === again.dom && after.dom !== before.dom) changes.push('the DOM');
    if (after.local !== before.local) changes.push('localStorage');
    if (after.session !== before.session) changes.push('sessionStorage');
    if (after.cookies !== before.cookies) changes.push('document.cookie');
    const found: LintFinding[] = [];
    if (changes.length) found.push({ ...mutationFinding(tool.name, changes), ...(tool.frameUrl ? { frameUrl: tool.frameUrl } : {}) });
    if (!outcome.finished && outcome.settledAfterAbort === false) found.push(abortFinding(tool.name, CANCEL_AFTER_MS));
    return found;
  } finally {
    await page.close().catch(() => undefined);
  }
}

/** The route probe: tools that stay after a link click changes the route in the page but that a fresh load of the new URL does not register. */
async function probeRoute(context: BrowserContext, url: string, report: ProbeReport): Promise<LintFinding[]> {
  const page = await load(context, url);
  try {
    const first = await page.evaluate(TOOL_NAMES) as string[];
    const target = await page.evaluate(`(() => {
      const link = [...document.querySelectorAll('a[href]')].find(a => { try { const u = new URL(a.href); return u.origin === location.origin && u.pathname !== location.pathname; } catch { return false; } });
      if (!link) return null;
      window.__tabwrightLintMark = true;
      link.click();
      return new URL(link.href).pathname;
    })()`) as string | null;
    const from = new URL(url).pathname;
    if (!target) {
      report.route = { skipped: 'the page has no same-origin link to another path' };
      return [];
    }
    await sleep(SETTLE_MS);
    const stayed = await page.evaluate('window.__tabwrightLintMark === true').catch(() => false);
    if (!stayed) {
      report.route = { skipped: `the link to ${target} loads a new document (not a route change inside the page), which drops every tool` };
      return [];
    }
    report.route = { from, to: target };
    const after = await page.evaluate(TOOL_NAMES) as string[];
    const fresh = await load(context, page.url());
    const own = await fresh.evaluate(TOOL_NAMES).catch(() => []) as string[];
    await fresh.close().catch(() => undefined);
    return first.filter(n => after.includes(n) && !own.includes(n)).map(n => lingeringFinding(n, from, target));
  } finally {
    await page.close().catch(() => undefined);
  }
}

/**
 * Runs the probes for the main-frame tools `tools` of the page at `url`, in a throwaway context of `page`'s browser
 * with `runtime` (the session's in-page runtime) injected. Never throws: what could not run is in the report.
 */
export async function probeTools(page: Page, url: string, tools: LintTool[], runtime: string | undefined, kind?: string): Promise<{ findings: LintFinding[]; report: ProbeReport }> {
  const report: ProbeReport = { called: [] };
  if (kind === 'extension') return { findings: [], report: { ...report, notRun: EXTENSION_REASON } };
  if (!/^https?:/.test(url)) return { findings: [], report: { ...report, notRun: `the tab shows ${url.slice(0, 80)}, not an http(s) page the probes can load again` } };
  const browser = page.context().browser();
  if (!browser) return { findings: [], report: { ...report, notRun: 'this connection gives no browser to open a throwaway context in (a persistent profile)' } };
  // Each probe gets a context of its own (storage is per context), six at a time.
  const open = async (): Promise<BrowserContext> => {
    const context = await browser.newContext();
    if (runtime) await context.addInitScript({ content: runtime });
    await context.addInitScript({ content: PROBE_SCRIPT });
    return context;
  };
  const inContext = async <T>(run: (context: BrowserContext) => Promise<T>): Promise<T> => {
    const context = await open();
    try {
      return await run(context);
    } finally {
      await context.close().catch(() => undefined);
    }
  };
  try {
    await (await open()).close();
  } catch (error) {
    return { findings: [], report: { ...report, notRun: `the browser would not open a throwaway context (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` } };
  }
  const readOnly = tools.filter(t => t.annotations?.readOnlyHint && !t.frameUrl && !t.form);
  report.called = readOnly.slice(0, MAX_CALLED).map(t => t.name);
  if (readOnly.length > MAX_CALLED) report.notCalled = readOnly.slice(MAX_CALLED).map(t => t.name);
  const jobs: Array<() => Promise<LintFinding[]>> = [
    () => inContext(context => probeRoute(context, url, report)).catch(error => {
      report.route = { skipped: `the probe failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
      return [];
    }),
    ...readOnly.slice(0, MAX_CALLED).map(tool => () => inContext(context => probeReadOnly(context, url, tool)).catch(() => [])),
  ];
  const findings: LintFinding[] = [];
  for (let i = 0; i < jobs.length; i += 6) for (const found of await Promise.all(jobs.slice(i, i + 6).map(job => job()))) findings.push(...found);
  return { findings, report };
}
