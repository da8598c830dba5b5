/**
 * The companion userscript (docs/userscript-connection.md): runs in every page under a userscript manager
 * (Tampermonkey, Violentmonkey, ScriptCat) and does nothing until the user picks "Allow agent access to this tab" in
 * its menu. Then, for that tab only, it connects to the broker whose URL the user pasted (`tabwright userscript url`)
 * over GM_xmlhttpRequest long-poll (src/browser/userscript/protocol.ts), says hello with this document's instance id,
 * and answers the broker's calls: code evaluated in the page's own world through an injected script whose result
 * comes back in a DOM event, navigate mode (ready, then proceed), and add_element through GM_addElement.
 *
 * The grant is kept per tab (GM_getTab where the manager has it, else sessionStorage, which a cross-origin
 * navigation loses) and survives reloads and navigation until "Disconnect". A title prefix and a toast show the
 * state (connecting, connected, failed); the titles reported to the broker leave the prefix out.
 *
 * In an allowed tab it also puts tabwright's in-page runtime (src/page/runtime.ts, built into this file) in the
 * page's world at document start, before the page's scripts, so that tools a page registers through
 * `document.modelContext` while it loads land in the runtime's WebMCP polyfill where the browser has no WebMCP of its
 * own (docs/userscript-connection.md, "WebMCP tools"). Whether the tab is allowed must be known at once for that:
 * a copy of the grant in sessionStorage says so (GM_getTab answers later); the same origin's next document reads it.
 */
import {
  CLOSE, OVERSIZED, USERSCRIPT_PROTOCOL, USERSCRIPT_PROTOCOL_MAJOR, USERSCRIPT_PROTOCOL_MINOR,
  type AddElementParams, type BrokerFrame, type CompanionFrame, type PageMeta,
} from '../../src/browser/userscript/protocol.js';

type Status = 'connecting' | 'connected' | 'failed';

/** What the companion keeps for this browser tab. */
interface TabGrant {
  /** The opaque id the broker knows the tab by. */
  target?: string;
  allowed?: boolean;
}

const MENU = {
  allow: 'Allow agent access to this tab',
  disconnect: 'Disconnect agent access from this tab',
  brokerUrl: 'Set the broker URL…',
  title: (on: boolean) => `Title indicator: ${on ? 'on' : 'off'}`,
  toast: (on: boolean) => `Toast indicator: ${on ? 'on' : 'off'}`,
};

const PREFIX: Record<Status, string> = { connecting: '[○TW] ', connected: '[●TW] ', failed: '[⊗TW] ' };
const STATUS_TEXT: Record<Status, string> = {
  connecting: 'tabwright: connecting this tab to the agent…',
  connected: 'tabwright: the agent can reach this tab',
  failed: 'tabwright: cannot reach the broker (is tabwright running with --connection userscript?)',
};
const BROKER_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d{1,5}\/userscript\/[A-Za-z0-9_-]{43}$/;
const TAB_KEY = 'tabwright';
/** Failed attempts in a row before the indicators say "failed". */
const FAILED_AFTER = 3;
/** A poll the broker holds 20 s: give up on it after 30 s. */
const POLL_TIMEOUT_MS = 30_000;

const instanceId = randomId();
const hasTabStore = typeof GM_getTab === 'function' && typeof GM_saveTab === 'function';

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

function loadGrant(): Promise<TabGrant> {
  if (hasTabStore) return new Promise(resolve => GM_getTab!(tab => resolve({ ...((tab?.[TAB_KEY] as TabGrant | undefined) ?? {}) })));
  try {
    return Promise.resolve(JSON.parse(sessionStorage.getItem(TAB_KEY) ?? '{}') as TabGrant);
  } catch {
    return Promise.resolve({});
  }
}

function saveGrant(grant: TabGrant): void {
  if (hasTabStore) GM_getTab!(tab => GM_saveTab!({ ...tab, [TAB_KEY]: grant }));
  // Also where the manager keeps it per tab: the copy that installRuntime reads at the next document start.
  try {
    sessionStorage.setItem(TAB_KEY, JSON.stringify(grant));
  } catch {
    // storage blocked on this page: the grant lasts as long as this document
  }
}

/**
 * Whether this document's tab was allowed, known at document start: the sessionStorage copy of the grant (the same
 * origin's earlier documents in this tab). A page can write it too; all it gains is the runtime in its own world.
 */
function allowedAtStart(): boolean {
  try {
    return (JSON.parse(sessionStorage.getItem(TAB_KEY) ?? '{}') as TabGrant).allowed === true;
  } catch {
    return false;
  }
}

/** tabwright's in-page runtime bundle (dist/page/runtime.js), put here by scripts/build.mjs. */
declare const __TABWRIGHT_RUNTIME__: string;
let runtimeInstalled = false;

/**
 * Puts the in-page runtime in the page's world, once per document, in mode `auto` (the polyfill where the browser
 * has no native WebMCP), as src/webmcp/runtimeScript.ts wraps it for the other kinds. Its script element removes
 * itself first: the runtime takes a script already in the document for page scripts that ran before it (`late`).
 */
function installRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const run = () => {
    try {
      inject(`document.currentScript && document.currentScript.remove();
(() => {
const __TABWRIGHT_WEBMCP__ = "auto";
${__TABWRIGHT_RUNTIME__}
})();
//# sourceURL=tabwright-runtime.js`);
    } catch {
      // No way into the page's world here: the first WebMCP listing injects the runtime through execute.
    }
  };
  if (document.documentElement) return run();
  // Some managers start document-start scripts before the parser made the root element (Firefox): wait for it.
  const observer = new MutationObserver(() => {
    if (!document.documentElement) return;
    observer.disconnect();
    run();
  });
  observer.observe(document, { childList: true });
}

/** The page's title without the indicator prefix, and its URL. */
function pageMeta(): PageMeta {
  let title = document.title;
  for (const prefix of Object.values(PREFIX)) if (title.startsWith(prefix)) title = title.slice(prefix.length);
  return { url: location.href, title };
}

function post(url: string, body: unknown, timeoutMs: number): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    GM_xmlhttpRequest({
      method: 'POST',
      url,
      data: body === undefined ? '' : JSON.stringify(body),
      headers: { 'content-type': 'application/json' },
      timeout: timeoutMs,
      anonymous: true,
      onload: r => {
        if (r.status !== 200) return reject(new Error(`HTTP ${r.status}`));
        try {
          resolve(JSON.parse(r.responseText) as Record<string, unknown>);
        } catch {
          reject(new Error('not JSON'));
        }
      },
      onerror: () => reject(new Error('network error')),
      ontimeout: () => reject(new Error('timeout')),
      onabort: () => reject(new Error('aborted')),
    });
  });
}

const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms));

/** Title prefix and toast (seed 001's indicators). Connectivity, not a security boundary. */
class Indicators {
  status: Status | undefined;
  private toast: HTMLElement | undefined;
  private hideTimer: ReturnType<typeof setTimeout> | undefined;
  private observer: MutationObserver | undefined;

  constructor(private readonly titleOn: () => boolean, private readonly toastOn: () => boolean) {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible' && this.status) this.showToast();
    });
  }

  set(status: Status | undefined): void {
    const changed = status !== this.status;
    this.status = status;
    this.applyTitle();
    if (changed && status) this.showToast();
    if (!status) this.hideToast();
  }

  applyTitle(): void {
    whenBody(() => {
      const { title } = pageMeta();
      const wanted = this.status && this.titleOn() ? PREFIX[this.status] + title : title;
      if (document.title !== wanted) document.title = wanted;
      if (!this.observer && document.head) {
        // The page sets its own title: put the prefix back in front of it.
        this.observer = new MutationObserver(() => this.applyTitle());
        this.observer.observe(document.head, { subtree: true, childList: true, characterData: true });
      }
    });
  }

  private showToast(): void {
    if (!this.toastOn() || !this.status) return;
    whenBody(() => {
      if (!this.toast) {
        const host = document.createElement('tabwright-toast');
        const root = host.attachShadow({ mode: 'closed' });
        const box = document.createElement('div');
        box.setAttribute('style', 'position:fixed;z-index:2147483647;right:12px;bottom:12px;max-width:360px;padding:8px 12px;'
          + 'border-radius:6px;background:#1f2937;color:#fff;font:13px/1.4 system-ui,sans-serif;box-shadow:0 2px 8px rgba(0,0,0,.3);pointer-events:none');
        root.append(box);
        this.toast = host;
        (host as HTMLElement & { box?: HTMLElement }).box = box;
      }
      const host = this.toast as HTMLElement & { box: HTMLElement };
      host.box.textContent = STATUS_TEXT[this.status!];
      if (!host.isConnected) document.documentElement.append(host);
      clearTimeout(this.hideTimer);
      if (this.status === 'connected') this.hideTimer = setTimeout(() => this.hideToast(), 2500);
    });
  }

  private hideToast(): void {
    clearTimeout(this.hideTimer);
    this.toast?.remove();
  }
}

function whenBody(run: () => void): void {
  if (document.readyState !== 'loading') run();
  else document.addEventListener('DOMContentLoaded', run, { once: true });
}

/** The result of evaluating code in the page's world: its JSON, or an error string. */
type Evaluation = { ok: true; json: string } | { ok: false; error: string };

/**
 * Runs `code` as the body of `async () => code` in the page's own world: an injected script (GM_addElement where the
 * manager has it: it can pass the page's CSP) that reports, in a DOM event of a one-time name, first that it
 * started, then its value as JSON or its error. A script that never starts did not compile or was blocked: a
 * page-world error listener, there only while the script is injected, reports the SyntaxError (a compile error
 * reaches only the listeners of the world that compiled it).
 */
function evaluate(code: string): Promise<Evaluation> {
  const name = `tabwright-${randomId()}`;
  return new Promise(resolve => {
    let started = false;
    let compileError: string | undefined;
    const onEvent = (event: Event) => {
      const detail = (event as CustomEvent).detail;
      if (typeof detail !== 'string') return;
      let message: { started?: true; compileError?: string; ok?: boolean; json?: string; error?: string };
      try {
        message = JSON.parse(detail) as typeof message;
      } catch {
        return;
      }
      if (message.started) {
        started = true;
        return;
      }
      if (message.compileError !== undefined) {
        if (!started) compileError = message.compileError;
        return;
      }
      document.removeEventListener(name, onEvent);
      resolve(message.ok ? { ok: true, json: String(message.json) } : { ok: false, error: String(message.error) });
    };
    document.addEventListener(name, onEvent);
    const source = `(() => {
const __twSend = d => document.dispatchEvent(new CustomEvent(${JSON.stringify(name)}, { detail: JSON.stringify(d) }));
__twSend({ started: true });
let __twRun;
try { __twRun = (async () => ${code}
)(); } catch (e) { __twRun = Promise.reject(e); }
Promise.resolve(__twRun).then(v => {
  let json;
  try { json = JSON.stringify(v === undefined ? null : v); } catch (e) { __twSend({ ok: false, error: 'the result is not JSON: ' + (e && e.message || e) }); return; }
  __twSend({ ok: true, json: json === undefined ? 'null' : json });
}, e => __twSend({ ok: false, error: e instanceof Error ? e.name + ': ' + e.message : String(e) }));
})();`;
    inject(`(() => {
const h = e => document.dispatchEvent(new CustomEvent(${JSON.stringify(name)}, { detail: JSON.stringify({ compileError: String(e.message) }) }));
addEventListener('error', h);
document.addEventListener(${JSON.stringify(`${name}-done`)}, () => removeEventListener('error', h), { once: true });
})();`);
    try {
      inject(source);
    } finally {
      document.dispatchEvent(new CustomEvent(`${name}-done`));
    }
    if (!started) {
      document.removeEventListener(name, onEvent);
      resolve({ ok: false, error: compileError ?? 'the code could not be injected into the page (its Content Security Policy may block inline scripts)' });
    }
  });
}

/** Appends an inline script with `source` to the page and removes it again (it ran on append). */
function inject(source: string): void {
  const parent = document.head ?? document.documentElement;
  const script = typeof GM_addElement === 'function'
    ? GM_addElement(parent, 'script', { textContent: source })
    : parent.appendChild(Object.assign(document.createElement('script'), { textContent: source }));
  script.remove();
}

/**
 * add_element: GM_addElement where the manager has it (it can pass the page's CSP), else the DOM. Without a parent
 * selector, as add_element on the other kinds and the managers' GM_addElement: <head> for script, style, link and
 * meta, else <body>, else the document element.
 */
function addElement(p: AddElementParams): { tag: string; id: string | null } {
  const parent = p.parent ? document.querySelector(p.parent) : (/^(script|style|link|meta)$/i.test(p.tag) ? document.head : document.body) ?? document.documentElement;
  if (!parent) throw new Error(`no element matches the parent selector ${p.parent}`);
  const attributes = p.attributes ?? {};
  const element = typeof GM_addElement === 'function'
    ? GM_addElement(parent, p.tag, { ...(p.properties ?? {}), ...attributes })
    : parent.appendChild(Object.assign(document.createElement(p.tag), p.properties ?? {}));
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, String(value));
  return { tag: element.tagName.toLowerCase(), id: element.id || null };
}

/** One opted-in tab's link to the broker: channels opened again and again until stop(). */
class Link {
  private stopped = false;
  private conn: string | undefined;
  private outbox: CompanionFrame[] = [];
  private sending: Promise<void> = Promise.resolve();
  private failures = 0;
  /** The navigate call waiting for proceed, and the one proceeded (same-document navigations complete it). */
  private waitingNav: { id: number; code: string; maxBytes: number } | undefined;
  private proceededNav: number | undefined;
  private readonly cancelled = new Set<number>();
  private lastMeta = '';
  private readonly stateTimer: ReturnType<typeof setInterval>;

  constructor(private readonly base: string, private readonly target: string, private readonly indicators: Indicators) {
    this.stateTimer = setInterval(() => this.reportState(), 1000);
    const onNavigation = () => this.sameDocumentNavigation();
    addEventListener('hashchange', onNavigation);
    addEventListener('popstate', onNavigation);
    document.addEventListener(NAV_EVENT, onNavigation);
    void this.run();
  }

  /** Sends `quit` (best effort) and stops for good. */
  async quit(): Promise<void> {
    this.stop();
    if (this.conn) await post(this.url(`${this.conn}/send`), [['quit']], 5000).catch(() => undefined);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.stateTimer);
    this.indicators.set(undefined);
  }

  private url(path: string): string {
    return `${this.base}/${encodeURIComponent(this.target)}/${path}`;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      this.indicators.set(this.failures >= FAILED_AFTER ? 'failed' : 'connecting');
      let closed = false;
      try {
        const opened = await post(this.url('open'), undefined, 10_000);
        this.conn = String(opened.conn);
        this.outbox = [];
        this.lastMeta = JSON.stringify(pageMeta());
        await this.send([USERSCRIPT_PROTOCOL, USERSCRIPT_PROTOCOL_MAJOR, USERSCRIPT_PROTOCOL_MINOR, instanceId, pageMeta()] as unknown as CompanionFrame);
        while (!this.stopped && !closed) {
          const answer = await post(this.url(`${this.conn}/poll`), undefined, POLL_TIMEOUT_MS);
          for (const frame of (answer.frames as BrokerFrame[] | undefined) ?? []) this.receive(frame);
          if (answer.close) closed = true;
          const code = (answer.close as { code?: number } | undefined)?.code;
          if (code === CLOSE.normal && (answer.close as { reason?: string }).reason === 'quit') this.stop();
        }
      } catch {
        this.failures += 1;
      }
      this.conn = undefined;
      if (!this.stopped) await sleep(Math.min(1000 * 2 ** Math.min(this.failures, 4), 10_000));
    }
  }

  /** Queues `frame` and sends the queue in order, one request at a time. */
  private send(frame: CompanionFrame): Promise<void> {
    this.outbox.push(frame);
    const conn = this.conn;
    this.sending = this.sending.then(async () => {
      const frames = this.outbox.splice(0);
      if (!frames.length || !conn || conn !== this.conn) return;
      const answer = await post(this.url(`${conn}/send`), frames, 30_000).catch(() => undefined);
      if (answer?.close) this.conn = undefined;
    });
    return this.sending;
  }

  private receive(frame: BrokerFrame): void {
    switch (frame[0]) {
      case 'welcome':
        this.failures = 0;
        this.indicators.set('connected');
        return;
      case 'call': {
        const [, id, method, params] = frame;
        if (method === 'navigate') {
          const p = params as { code: string; max_bytes: number };
          this.waitingNav = { id, code: p.code, maxBytes: p.max_bytes };
          void this.send(['ready', id]);
        } else if (method === 'execute') {
          const p = params as { code: string; max_bytes: number };
          void evaluate(p.code).then(result => this.reply(id, result, p.max_bytes));
        } else if (method === 'add_element') {
          let result: Evaluation;
          try {
            result = { ok: true, json: JSON.stringify(addElement(params as AddElementParams)) };
          } catch (error) {
            result = { ok: false, error: error instanceof Error ? error.message : String(error) };
          }
          this.reply(id, result, Number.MAX_SAFE_INTEGER);
        }
        return;
      }
      case 'proceed': {
        const nav = this.waitingNav;
        if (nav?.id !== frame[1]) return;
        this.waitingNav = undefined;
        this.proceededNav = nav.id;
        void evaluate(nav.code).then(result => this.reply(nav.id, result, nav.maxBytes));
        return;
      }
      case 'cancel':
        this.cancelled.add(frame[1]);
        if (this.waitingNav?.id === frame[1]) this.waitingNav = undefined;
        if (this.proceededNav === frame[1]) this.proceededNav = undefined;
        return;
    }
  }

  private reply(id: number, result: Evaluation, maxBytes: number): void {
    if (this.cancelled.delete(id)) return;
    if (!result.ok) {
      void this.send(['reply', id, false, result.error]);
      return;
    }
    const size = new TextEncoder().encode(`["reply",${id},true,${result.json}]`).length;
    if (size > maxBytes) void this.send(['reply', id, false, `${OVERSIZED} ${size} bytes of JSON, over max_bytes ${maxBytes}`]);
    else void this.send(['reply', id, true, JSON.parse(result.json)]);
  }

  private sameDocumentNavigation(): void {
    const id = this.proceededNav;
    this.lastMeta = JSON.stringify(pageMeta());
    if (id === undefined) return void this.send(['state', pageMeta()]);
    this.proceededNav = undefined;
    void this.send(['navigated', id, pageMeta()]);
  }

  /** Reports a changed title or URL (a history API change the page made) as `state`. */
  private reportState(): void {
    if (!this.conn) return;
    const meta = JSON.stringify(pageMeta());
    if (meta === this.lastMeta) return;
    const urlChanged = (JSON.parse(this.lastMeta) as PageMeta).url !== location.href;
    this.lastMeta = meta;
    if (urlChanged) this.sameDocumentNavigation();
    else void this.send(['state', pageMeta()]);
  }
}

/** The DOM event the page-world hook fires on a same-document navigation (history API, Navigation API). */
const NAV_EVENT = `tabwright-navigated-${randomId()}`;

/** Puts a listener in the page's world that reports same-document navigations the content world cannot see. */
function hookNavigation(): void {
  const fire = `() => document.dispatchEvent(new CustomEvent(${JSON.stringify(NAV_EVENT)}))`;
  inject(`(() => { const fire = ${fire};
if (window.navigation && 'oncurrententrychange' in window.navigation) { window.navigation.addEventListener('currententrychange', fire); return; }
for (const k of ['pushState', 'replaceState']) { const orig = history[k]; history[k] = function (...a) { const r = orig.apply(this, a); fire(); return r; }; }
})();`);
}

async function main(): Promise<void> {
  const grant = await loadGrant();
  let titleOn = GM_getValue('titleIndicator', true);
  let toastOn = GM_getValue('toastIndicator', true);
  const indicators = new Indicators(() => titleOn, () => toastOn);
  let link: Link | undefined;
  let menuIds: Array<number | string> = [];

  const askBrokerUrl = (): string | undefined => {
    const current = GM_getValue('brokerUrl', '');
    const given = prompt('Paste the broker URL that `tabwright userscript url` prints (keep it private):', current)?.trim().replace(/\/+$/, '');
    if (!given) return undefined;
    if (!BROKER_URL.test(given)) {
      alert('That is not a tabwright broker URL (http://127.0.0.1:PORT/userscript/TOKEN).');
      return undefined;
    }
    GM_setValue('brokerUrl', given);
    return given;
  };
  const connect = () => {
    link?.stop();
    const base = GM_getValue('brokerUrl', '');
    if (!BROKER_URL.test(base) || !grant.target) return;
    installRuntime();
    whenBody(hookNavigation);
    link = new Link(base, grant.target, indicators);
  };
  const menu = () => {
    for (const id of menuIds) GM_unregisterMenuCommand(id);
    menuIds = [];
    if (!grant.allowed) {
      // An unapproved tab offers this one command and nothing else.
      menuIds.push(GM_registerMenuCommand(MENU.allow, () => {
        if (!BROKER_URL.test(GM_getValue('brokerUrl', '')) && !askBrokerUrl()) return;
        grant.allowed = true;
        grant.target ??= randomId();
        saveGrant(grant);
        menu();
        connect();
      }));
      return;
    }
    menuIds.push(GM_registerMenuCommand(MENU.disconnect, () => {
      grant.allowed = false;
      saveGrant(grant);
      const leaving = link;
      link = undefined;
      void leaving?.quit();
      indicators.set(undefined);
      menu();
    }));
    menuIds.push(GM_registerMenuCommand(MENU.brokerUrl, () => {
      if (askBrokerUrl()) connect();
    }));
    menuIds.push(GM_registerMenuCommand(MENU.title(titleOn), () => {
      titleOn = !titleOn;
      GM_setValue('titleIndicator', titleOn);
      indicators.applyTitle();
      menu();
    }));
    menuIds.push(GM_registerMenuCommand(MENU.toast(toastOn), () => {
      toastOn = !toastOn;
      GM_setValue('toastIndicator', toastOn);
      menu();
    }));
  };
  menu();
  if (grant.allowed) connect();
}

if (window.top === window) {
  if (allowedAtStart()) installRuntime();
  void main();
}
