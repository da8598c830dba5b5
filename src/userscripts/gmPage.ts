/**
 * The in-page userscript engine (and "GM API"):
 * bundled by esbuild into dist/page/userscripts.js and injected at document
 * start into every frame, right after the in-page runtime
 * (src/userscripts/injection.ts builds the init script). No Node imports.
 *
 * For each enabled script it decides in the page, at run time, whether the
 * frame's URL matches (`scriptMatchesUrl`) and whether `@noframes` keeps it
 * out of a child frame, then runs it at its `@run-at`:
 * - `document-start`: at once, before any page script;
 * - `document-end`: at DOMContentLoaded (at once if already past it);
 * - `document-idle` (default): one task after DOMContentLoaded, so after the
 *   page's own DOMContentLoaded handlers (as Violentmonkey does).
 *
 * Worlds: every script runs in the page's JavaScript world. A script with
 * `@grant none` (or no grant) gets nothing but `GM_info`; a script with
 * grants gets the GM functions as parameters of its wrapper function, so
 * they are never properties of any object a page script can reach (the
 * Violentmonkey "page" mode). `unsafeWindow` is the page's `window` itself.
 * See docs/userscripts.md, "Injection", for why not a V8 isolated world.
 *
 * The server is reached through one Playwright binding captured here and
 * deleted from `window` before page scripts run; every message carries the
 * process's token. The server reaches the engine through one frozen,
 * non-configurable global function (`__tabwright_us_sync`) that checks the
 * same token (value changes from other tabs, menu command runs).
 */
import type { ScriptKind, ScriptMetadata } from './types.js';
import { networkApi, type XhrRequest } from './gmPageNet.js';

/** One script as the init script ships it. */
export interface PageScript {
  id: string;
  kind: ScriptKind;
  meta: ScriptMetadata;
  /** Current GM values, as JSON texts by key (GM_getValue is synchronous). */
  values: Record<string, string>;
  /**
   * Its `@resource` data (base64) with MIME types, for GM_getResourceText / GM_getResourceURL: present only when the
   * script grants one of them (./injectionScript.ts).
   */
  resources?: Array<{ name: string; mime: string; data: string }>;
  /** The script's wrapper (see injectionScript.ts, `SCRIPT_PARAMS`). */
  fn: (this: unknown, ...args: unknown[]) => unknown;
}

/** What the init script defines as `__TW_US__`. */
export interface PageConfig {
  token: string;
  /** The Playwright binding's global name. */
  binding: string;
  /** tabwright's version (GM_info.version). */
  version: string;
  scripts: PageScript[];
  /** Whether any AgentScript is enabled: then each document announces itself (tool attribution). */
  agentScripts: boolean;
  /**
   * Set when the extension registered the engine (chrome.userScripts, src/userscripts/extensionScripts.ts): messages
   * go as DOM events named `<event>-out` to the extension's messenger (answers come back as `<event>-in`) instead
   * of the Playwright binding, and no script runs before the tab is known to be shared: the global `flag` set at
   * document start (the extension's mark in shared tabs it is attached to), else a `gate` message answered true.
   */
  bridge?: { event: string; flag: string };
}

/** Messages from the engine to the server (`t` is the type). */
export type EngineMessage =
  | { t: 'doc'; doc: string }
  | { t: 'ran'; id: string }
  | { t: 'values'; ids: string[] }
  | { t: 'set'; id: string; key: string; json: string }
  | { t: 'del'; id: string; key: string }
  | { t: 'log'; id: string; level: 'log' | 'error'; text: string }
  | { t: 'menu'; id: string; cmd: string; caption: string }
  | { t: 'clip'; id: string; text: string }
  | { t: 'tool'; id: string; doc: string; name: string }
  /** GM_xmlhttpRequest (answered with ./gmPageNet.ts XhrAnswer); `rid` names it for `xhr-abort`. */
  | { t: 'xhr'; id: string; rid: string; req: XhrRequest }
  | { t: 'xhr-abort'; rid: string }
  /** GM_download (answered with DownloadAnswer); `body` (base64) for a blob: or data: URL the page read. */
  | { t: 'dl'; id: string; url: string; name: string; headers: Record<string, string>; body?: string }
  /** GM_openInTab (answered with `{tid}` or `{error}`) and its handle's close(). */
  | { t: 'tab'; id: string; url: string; background: boolean }
  | { t: 'tab-close'; id: string; tid: number }
  /** GM_notification. */
  | { t: 'note'; id: string; text: string; title: string; image?: string }
  /** Extension only: answered by the extension itself (true: the tab is shared). */
  | { t: 'gate' };

/** Messages from the server to the engine (through `__tabwright_us_sync`). */
export type ServerMessage =
  | { t: 'value'; id: string; key: string; json?: string }
  | { t: 'run-menu'; cmd: string }
  /** A tab a script of this document opened (GM_openInTab) closed. */
  | { t: 'tab-closed'; tid: number };

/** The names of the wrapper's parameters, in order (the injection script writes the same list). */
export const SCRIPT_PARAMS = [
  'GM_info', 'GM_getValue', 'GM_setValue', 'GM_deleteValue', 'GM_listValues', 'GM_addStyle', 'GM_addElement', 'GM_log',
  'GM_registerMenuCommand', 'GM_setClipboard', 'GM_xmlhttpRequest', 'GM_openInTab', 'GM_download', 'GM_notification',
  'GM_addValueChangeListener', 'GM_removeValueChangeListener', 'GM_getResourceText', 'GM_getResourceURL', 'GM',
  'unsafeWindow', 'document', 'navigator',
] as const;

/** The global the server calls to reach the engine. */
export const SYNC_HOOK = '__tabwright_us_sync';

interface ScriptRegistrar {
  register(scriptId: string, tool: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<void>;
}

/**
 * Runs the enabled scripts that match this frame. `matches` is
 * `scriptMatchesUrl` (src/userscripts/match.ts), bundled with the engine.
 * Runs once per document: a second engine (while the init script is being
 * replaced) does nothing.
 */
export function startUserscripts(config: PageConfig, matches: (meta: ScriptMetadata, url: string) => boolean): void {
  const g = globalThis as unknown as Record<string, unknown>;
  if (SYNC_HOOK in g) return;
  // Taken before page scripts run, so later page changes to these globals do not reach us.
  const { stringify, parse } = JSON;
  const defineProperty = Object.defineProperty;
  const apply = Reflect.apply;
  const freeze = Object.freeze;
  const create = Object.create;
  const doc = document;
  const nav = navigator;
  const setTimeoutFn = setTimeout;
  const atobFn = atob;
  const charCodeAt = String.prototype.charCodeAt;
  const Bytes = Uint8Array;
  const Decoder = TextDecoder;
  const decode = TextDecoder.prototype.decode;
  let raw = g[config.binding] as ((token: string, msg: EngineMessage) => Promise<unknown>) | undefined;
  try {
    // Also on the extension's path: the context still has the binding (exposed for the CDP path).
    delete g[config.binding];
  } catch {
    // not deletable: left as is (calls still need the token)
  }
  let shared = true;
  if (config.bridge) {
    raw = eventBridge(config.bridge.event);
    shared = config.bridge.flag in g;
    try {
      delete g[config.bridge.flag];
    } catch {
      // set non-configurable by someone else: not our mark
      shared = false;
    }
  }
  const send = (msg: EngineMessage): Promise<unknown> => (raw ? raw(config.token, msg).catch(() => undefined) : Promise.resolve(undefined));

  const docId = Math.random().toString(36).slice(2) + Date.now().toString(36);
  const isTop = window.top === window;
  const url = location.href;
  const valuesOf = new Map<string, Record<string, string>>();
  const menuHandlers = new Map<string, () => unknown>();
  const registrar = claimRegistrar();
  /** Tools this document's AgentScripts registered natively (no polyfill): the page may not execute them. */
  const agentToolNames = new Set<string>();
  const readsStorage = (s: PageScript) => s.meta.grant.some(g => /^GM[_.](getValue|listValues)$/.test(g));
  const writtenSince = new Set<string>();
  /** GM_addValueChangeListener: per script, listener id -> key and function. */
  const valueListeners = new Map<string, Map<number, { key: string; fn: unknown }>>();
  let listenerSeq = 0;
  /** Tabs this document's scripts opened (GM_openInTab), by tabwright tab id. */
  const openedTabs = new Map<number, { closed: boolean; onclose?: unknown }>();
  let fresh = true;
  let freshValues: Promise<void> = Promise.resolve();
  if (shared) begin();
  // Not marked (a shared tab the extension is not attached to yet, or a tab that is not shared): ask the extension.
  else void send({ t: 'gate' }).then(answer => {
    if (answer === true && !(SYNC_HOOK in g)) begin();
  });

  /**
   * Messages as DOM events to the extension's messenger (USER_SCRIPT world): the page does not know the event
   * name. Sent from the next task on, so the messenger (registered first, but in another world) listens by then.
   */
  function eventBridge(event: string): (token: string, msg: EngineMessage) => Promise<unknown> {
    const waiting = new Map<number, (r: unknown) => void>();
    const dispatch = doc.dispatchEvent.bind(doc);
    const Custom = CustomEvent;
    let seq = 0;
    let queue: Array<() => void> | undefined = [];
    setTimeoutFn(() => {
      const ready = queue ?? [];
      queue = undefined;
      for (const fn of ready) fn();
    }, 0);
    doc.addEventListener(`${event}-in`, e => {
      let answer: { id?: number; r?: unknown };
      try {
        answer = parse(String((e as CustomEvent).detail)) as typeof answer;
      } catch {
        return;
      }
      const resolve = typeof answer.id === 'number' ? waiting.get(answer.id) : undefined;
      if (!resolve) return;
      waiting.delete(answer.id!);
      resolve(answer.r);
    });
    return (_token, msg) => new Promise(resolve => {
      const id = ++seq;
      waiting.set(id, resolve);
      const go = () => void dispatch(new Custom(`${event}-out`, { detail: stringify({ id, msg }) }));
      if (queue) queue.push(go);
      else go();
    });
  }

  function begin(): void {
  defineProperty(g, SYNC_HOOK, {
    value: Object.freeze((token: string, msg: ServerMessage) => {
      if (token !== config.token || !msg) return false;
      if (msg.t === 'value') {
        const values = valuesOf.get(msg.id);
        if (!values) return false;
        const old = values[msg.key];
        if (msg.json === undefined) delete values[msg.key];
        else values[msg.key] = msg.json;
        valueChanged(msg.id, msg.key, old, msg.json, true);
        return true;
      }
      if (msg.t === 'tab-closed') {
        const handle = openedTabs.get(msg.tid);
        if (!handle || handle.closed) return false;
        handle.closed = true;
        openedTabs.delete(msg.tid);
        if (typeof handle.onclose === 'function') setTimeoutFn(() => (handle.onclose as () => void).call(handle), 0);
        return true;
      }
      if (msg.t === 'run-menu') {
        const handler = menuHandlers.get(msg.cmd);
        if (!handler) return false;
        handler();
        return true;
      }
      return false;
    }),
    enumerable: false,
    writable: false,
    configurable: false,
  });

  if (config.agentScripts) {
    void send({ t: 'doc', doc: docId });
    if (!registrar) guardNativeExecute();
  }

  const matching = config.scripts.filter(script => {
    if (script.meta.noframes && !isTop) return false;
    try {
      return matches(script.meta, url);
    } catch {
      return false;
    }
  });
  for (const script of matching) valuesOf.set(script.id, { ...script.values });

  // The shipped values may be a few ms old (a write in another tab while this document started):
  // ask the server once for the current ones. Scripts that read storage and run at document-end or
  // later wait for the answer; document-start scripts run with the shipped values.
  const storageIds = matching.filter(readsStorage).map(s => s.id);
  if (storageIds.length) {
    fresh = false;
    freshValues = send({ t: 'values', ids: storageIds }).then(answer => {
      for (const [id, current] of Object.entries((answer ?? {}) as Record<string, Record<string, string>>)) {
        const values = valuesOf.get(id);
        if (!values || !current) continue;
        for (const key of Object.keys(values)) {
          if (key in current || writtenSince.has(`${id}\n${key}`)) continue;
          const old = values[key];
          delete values[key];
          valueChanged(id, key, old, undefined, true);
        }
        for (const [key, json] of Object.entries(current)) {
          if (writtenSince.has(`${id}\n${key}`)) continue;
          const old = values[key];
          values[key] = json;
          valueChanged(id, key, old, json, true);
        }
      }
      fresh = true;
    });
  }
  const afterFresh = (script: PageScript, fn: () => void) => {
    if (fresh || !readsStorage(script)) fn();
    else void freshValues.then(fn);
  };

  for (const script of matching) {
    const run = () => runScript(script);
    if (script.meta.runAt === 'document-start') whenRoot(run);
    else if (script.meta.runAt === 'document-end') {
      if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => afterFresh(script, run), { once: true });
      else afterFresh(script, run);
    } else if (doc.readyState === 'loading') doc.addEventListener('DOMContentLoaded', () => setTimeoutFn(() => afterFresh(script, run), 0), { once: true });
    else setTimeoutFn(() => afterFresh(script, run), 0);
  }

  }

  /**
   * Native WebMCP: page scripts must not run an AgentScript's tools through
   * `modelContext.executeTool`; the prototype's method is replaced (before
   * page scripts run) by one that refuses those names.
   */
  function guardNativeExecute(): void {
    const target = (doc as unknown as { modelContext?: object }).modelContext;
    if (!target) return;
    const proto = Object.getPrototypeOf(target) as Record<string, unknown> | null;
    const original = proto?.executeTool as ((...a: unknown[]) => unknown) | undefined;
    if (!proto || typeof original !== 'function') return;
    const DOMEx = DOMException;
    try {
      defineProperty(proto, 'executeTool', {
        value: function executeTool(this: unknown, tool: unknown, ...rest: unknown[]) {
          const name = typeof tool === 'string' ? tool : String((tool as { name?: unknown } | null)?.name);
          if (agentToolNames.has(name)) return Promise.reject(new DOMEx(`Tool "${name}" belongs to an AgentScript; only tabwright can call it.`, 'NotAllowedError'));
          return original.call(this, tool, ...rest);
        },
        writable: false,
        configurable: false,
      });
    } catch {
      // a non-configurable native property: left as is (documented limitation)
    }
  }

  /**
   * Runs `fn` once the document has its root element. At document start the
   * document is still empty (no `<html>` yet, unlike an extension's
   * document_start); the parser's first insertion is seen by a
   * MutationObserver whose callback, a microtask, runs before the parser
   * executes the first page script (the HTML parser performs a microtask
   * checkpoint before each script).
   */
  function whenRoot(fn: () => void): void {
    if (doc.documentElement) {
      fn();
      return;
    }
    const observer = new MutationObserver(() => {
      if (!doc.documentElement) return;
      observer.disconnect();
      fn();
    });
    observer.observe(doc, { childList: true });
  }

  function claimRegistrar(): ScriptRegistrar | undefined {
    const api = g.__tabwright as { webmcp?: { claimScriptRegistrar?: () => ScriptRegistrar | undefined } } | undefined;
    try {
      return api?.webmcp?.claimScriptRegistrar?.();
    } catch {
      return undefined;
    }
  }

  function errorText(e: unknown): string {
    if (e instanceof Error) return e.stack && e.stack.includes(e.message) ? e.stack : `${e.name}: ${e.message}`;
    try {
      return `Uncaught ${typeof e === 'string' ? e : stringify(e)}`;
    } catch {
      return 'Uncaught (unprintable value)';
    }
  }

  /**
   * Calls the script's GM_addValueChangeListener listeners for `key` when its JSON changed (`remote`: the change came
   * from another document, tab or frame). Later, in a task of its own, so a listener never runs inside the server's
   * evaluation or the script's own GM_setValue call.
   */
  function valueChanged(scriptId: string, key: string, oldJson: string | undefined, newJson: string | undefined, remote: boolean): void {
    const listeners = valueListeners.get(scriptId);
    if (!listeners?.size || oldJson === newJson) return;
    const value = (json: string | undefined) => (json === undefined ? undefined : parse(json));
    for (const listener of [...listeners.values()]) {
      if (listener.key !== key || typeof listener.fn !== 'function') continue;
      setTimeoutFn(() => {
        try {
          apply(listener.fn as (...a: unknown[]) => unknown, undefined, [key, value(oldJson), value(newJson), remote]);
        } catch (e) {
          void send({ t: 'log', id: scriptId, level: 'error', text: errorText(e) });
        }
      }, 0);
    }
  }

  function runScript(script: PageScript): void {
    void send({ t: 'ran', id: script.id });
    const report = (e: unknown) => void send({ t: 'log', id: script.id, level: 'error', text: errorText(e) });
    try {
      // Reflect.apply as taken at document start: a page script that replaced Function.prototype.apply by now
      // (document-idle scripts run after the page's) must not receive the script's GM functions.
      const result = apply(script.fn, window, apiFor(script) as unknown[]) as { then?: unknown } | undefined;
      if (result && typeof result.then === 'function') (result as Promise<unknown>).then(undefined, report);
    } catch (e) {
      report(e);
    }
  }

  /** The wrapper's arguments for one script, in `SCRIPT_PARAMS` order. */
  function apiFor(script: PageScript): unknown[] {
    const id = script.id;
    const meta = script.meta;
    const grants = new Set(meta.grant.filter(x => x !== 'none'));
    const granted = (name: string) => grants.has(`GM_${name}`) || grants.has(`GM.${name}`);
    const values = valuesOf.get(id)!;
    const info = Object.freeze({
      script: Object.freeze({
        name: meta.name,
        namespace: meta.namespace,
        version: meta.version ?? '',
        description: meta.description ?? '',
        matches: [...meta.match],
        includes: [...meta.include],
        excludes: [...meta.exclude],
        grant: [...meta.grant],
        'run-at': meta.runAt,
        noframes: meta.noframes,
        resources: meta.resource.map(r => ({ name: r.name, url: r.value })),
      }),
      scriptHandler: 'tabwright',
      version: config.version,
      injectInto: 'page',
    });
    const getValue = (key: string, fallback?: unknown) => {
      const json = values[String(key)];
      return json === undefined ? fallback : parse(json);
    };
    const setValue = (key: string, value: unknown): Promise<void> => {
      const json = stringify(value);
      const k = String(key);
      if (!fresh) writtenSince.add(`${id}\n${k}`);
      const old = values[k];
      if (json === undefined) {
        delete values[k];
        valueChanged(id, k, old, undefined, false);
        return send({ t: 'del', id, key: k }).then(() => undefined);
      }
      values[k] = json;
      valueChanged(id, k, old, json, false);
      return send({ t: 'set', id, key: k, json }).then(() => undefined);
    };
    const deleteValue = (key: string): Promise<void> => {
      const k = String(key);
      if (!fresh) writtenSince.add(`${id}\n${k}`);
      const old = values[k];
      delete values[k];
      valueChanged(id, k, old, undefined, false);
      return send({ t: 'del', id, key: k }).then(() => undefined);
    };
    const addValueChangeListener = (key: string, fn: unknown): number => {
      let listeners = valueListeners.get(id);
      if (!listeners) valueListeners.set(id, (listeners = new Map()));
      listeners.set(++listenerSeq, { key: String(key), fn });
      return listenerSeq;
    };
    const removeValueChangeListener = (listenerId: number): void => {
      valueListeners.get(id)?.delete(Number(listenerId));
    };
    const listValues = () => Object.keys(values);
    const addStyle = (css: string) => {
      const style = doc.createElement('style');
      style.textContent = String(css);
      (doc.head ?? doc.documentElement).appendChild(style);
      return style;
    };
    const addElement = (...args: unknown[]) => {
      const [parent, tag, attrs] = typeof args[0] === 'string' ? [undefined, args[0], args[1]] : (args as [Node | undefined, string, unknown]);
      const el = doc.createElement(String(tag));
      for (const [k, v] of Object.entries((attrs ?? {}) as Record<string, unknown>)) {
        if (k === 'textContent') el.textContent = String(v);
        else el.setAttribute(k, String(v));
      }
      (parent ?? (/^(script|style|link|meta)$/i.test(String(tag)) ? doc.head : doc.body) ?? doc.documentElement).appendChild(el);
      return el;
    };
    const log = (...parts: unknown[]) => {
      const text = parts.map(p => (typeof p === 'string' ? p : safeStringify(p))).join(' ');
      void send({ t: 'log', id, level: 'log', text });
    };
    let menuSeq = 0;
    const registerMenuCommand = (caption: string, handler: () => unknown, options?: string | { id?: string | number }) => {
      const given = typeof options === 'object' && options && options.id !== undefined ? String(options.id) : undefined;
      const cmd = `${id}:${given ?? ++menuSeq}`;
      menuHandlers.set(cmd, () => {
        try {
          const result = handler() as { then?: unknown } | undefined;
          if (result && typeof result.then === 'function') (result as Promise<unknown>).then(undefined, e => void send({ t: 'log', id, level: 'error', text: errorText(e) }));
        } catch (e) {
          void send({ t: 'log', id, level: 'error', text: errorText(e) });
        }
      });
      void send({ t: 'menu', id, cmd, caption: String(caption) });
      return given ?? menuSeq;
    };
    const setClipboard = (data: string): Promise<void> => send({ t: 'clip', id, text: String(data) }).then(() => undefined);
    // @resource (docs/userscripts.md, "GM API"): the data shipped with the script; an unknown name gives undefined, as
    // in Violentmonkey. Looked up with an index loop over a null-prototype map built now: a page script may have
    // replaced Array.prototype's iterator or methods by the time a document-idle script runs.
    const resources = create(null) as Record<string, { mime: string; data: string; text?: string }>;
    const shipped = script.resources ?? [];
    for (let i = 0; i < shipped.length; i++) resources[shipped[i]!.name] = { mime: shipped[i]!.mime, data: shipped[i]!.data };
    const getResourceText = (name: string): string | undefined => {
      const r = resources[String(name)];
      if (!r) return undefined;
      if (r.text === undefined) {
        const binary = atobFn(r.data);
        const bytes = new Bytes(binary.length);
        for (let i = 0; i < binary.length; i++) bytes[i] = apply(charCodeAt, binary, [i]) as number;
        r.text = apply(decode, new Decoder('utf-8'), [bytes]) as string;
      }
      return r.text;
    };
    // Always a data: URL (Violentmonkey's `isBlobUrl` second argument is accepted and ignored): it needs no object URL
    // that outlives the document, and loads in an <img> or <link> under any world.
    const getResourceURL = (name: string): string | undefined => {
      const r = resources[String(name)];
      return r ? `data:${r.mime};base64,${r.data}` : undefined;
    };

    // No prototype: a setter a page script put on Object.prototype must not see the functions as they are stored.
    const gm = create(null) as Record<string, unknown>;
    const all = create(null) as Record<string, unknown>;
    gm.info = info;
    all.GM_info = info;
    const offer = (name: string, fn: (...a: never[]) => unknown, promised: (...a: never[]) => unknown = (...a) => Promise.resolve(fn(...a))) => {
      if (!granted(name)) return;
      all[`GM_${name}`] = fn;
      gm[name] = promised;
    };
    offer('getValue', getValue);
    offer('setValue', (k: string, v: unknown) => void setValue(k, v), setValue);
    offer('deleteValue', (k: string) => void deleteValue(k), deleteValue);
    offer('listValues', listValues);
    offer('addStyle', addStyle);
    offer('addElement', addElement);
    offer('log', log);
    offer('registerMenuCommand', registerMenuCommand);
    offer('setClipboard', (d: string) => void setClipboard(d), setClipboard);
    const net = networkApi({ id, docId, send, report: e => void send({ t: 'log', id, level: 'error', text: errorText(e) }), tabs: openedTabs });
    if (granted('xmlhttpRequest') || granted('xmlHttpRequest')) {
      all.GM_xmlhttpRequest = net.xmlhttpRequest;
      gm.xmlHttpRequest = net.xmlHttpRequestPromise;
    }
    offer('openInTab', net.openInTab, (u: unknown, o?: unknown) => Promise.resolve(net.openInTab(u, o)));
    offer('download', net.download, net.downloadPromise);
    offer('notification', (t: unknown, a?: unknown, b?: unknown, c?: unknown) => void net.notification(t, a, b, c), net.notification);
    offer('addValueChangeListener', addValueChangeListener);
    offer('removeValueChangeListener', removeValueChangeListener);
    offer('getResourceText', getResourceText);
    // Greasemonkey 4 spells the promise form GM.getResourceUrl.
    if (granted('getResourceURL') || granted('getResourceUrl')) {
      all.GM_getResourceURL = getResourceURL;
      gm.getResourceUrl = (name: string) => Promise.resolve(getResourceURL(name));
    }
    const hasGrants = grants.size > 0;
    let scriptDoc: unknown = doc;
    let scriptNav: unknown = nav;
    if (script.kind === 'agentscript') {
      const views = agentViews(script);
      scriptDoc = views.document;
      scriptNav = views.navigator;
    }
    // Built with defineProperty taken at document start, not Array.prototype.map or index assignment, which a page
    // script (before a document-idle script runs) could have replaced or given a setter.
    const args: unknown[] = [];
    for (let i = 0; i < SCRIPT_PARAMS.length; i++) {
      const name = SCRIPT_PARAMS[i]!;
      const value = name === 'GM' ? (hasGrants ? freeze(gm) : undefined)
        : name === 'unsafeWindow' ? (hasGrants || grants.has('unsafeWindow') ? window : undefined)
          : name === 'document' ? scriptDoc
            : name === 'navigator' ? scriptNav
              : all[name];
      defineProperty(args, i, { value, writable: true, enumerable: true, configurable: true });
    }
    return args;
  }

  function safeStringify(value: unknown): string {
    try {
      return stringify(value) ?? String(value);
    } catch {
      return String(value);
    }
  }

  /**
   * The `document` and `navigator` an AgentScript sees: the real ones, except
   * that `modelContext.registerTool` records the script as the tool's owner
   * (polyfill: registered as an AgentScript tool the page cannot execute;
   * native: registered natively and reported to the server).
   */
  function agentViews(script: PageScript): { document: unknown; navigator: unknown } {
    const real = () => (doc as unknown as { modelContext?: Record<string, unknown> }).modelContext ?? (nav as unknown as { modelContext?: Record<string, unknown> }).modelContext;
    let wrapped: unknown;
    const modelContext = () => {
      const target = real();
      if (!target) return undefined;
      wrapped ??= new Proxy(target, {
        get(t, prop) {
          if (prop === 'registerTool') {
            return (tool: Record<string, unknown>, options?: { signal?: AbortSignal }) => {
              if (registrar) return registrar.register(script.id, tool, options);
              const done = (t.registerTool as (...a: unknown[]) => Promise<void>).call(t, tool, options);
              return Promise.resolve(done).then(() => {
                agentToolNames.add(String(tool?.name ?? ''));
                void send({ t: 'tool', id: script.id, doc: docId, name: String(tool?.name ?? '') });
              });
            };
          }
          const v = Reflect.get(t, prop, t) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
      return wrapped;
    };
    const view = <T extends object>(target: T) => {
      const bound = new Map<unknown, unknown>();
      return new Proxy(target, {
        get(t, prop) {
          if (prop === 'modelContext') return modelContext();
          const v = Reflect.get(t, prop, t) as unknown;
          if (typeof v !== 'function') return v;
          let b = bound.get(v);
          if (!b) bound.set(v, (b = (v as (...a: unknown[]) => unknown).bind(t)));
          return b;
        },
        set(t, prop, value) {
          return Reflect.set(t, prop, value, t);
        },
      });
    };
    return { document: view(doc), navigator: view(nav) };
  }
}
