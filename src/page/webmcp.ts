/**
 * The WebMCP polyfill of the in-page runtime (docs/webmcp.md, "The
 * polyfill"). Installed at document start, before page scripts, when the
 * browser has no native `document.modelContext` (mode `auto`), or over the
 * native one (mode `polyfill`); never in mode `native`.
 *
 * Page-facing API (the shape of Chromium 156's native one):
 * `document.modelContext` (and `navigator.modelContext`, a deprecated alias)
 * is an EventTarget with
 * - `registerTool(tool, {signal}?) → Promise<void>`: rejects with a
 *   TypeError when `execute` is missing or the inputSchema does not
 *   serialize to JSON, and with an InvalidStateError for an invalid name
 *   (1–128 of ASCII letters, digits, `_ - .`), an empty description or a
 *   duplicate name. Aborting `signal` unregisters the tool;
 * - `unregisterTool(name)` (the Chrome 148 transition API);
 * - `getTools() → Promise<tool[]>`, sorted by name, imperative and
 *   declarative (`<form toolname tooldescription>`, ./webmcpForms.ts);
 * - `executeTool(tool | name, input, {signal}?) → Promise<string>` (the
 *   result as JSON text, like Chromium's);
 * - `toolchange` events (and `ontoolchange`) after each register/unregister.
 * `execute(input, {signal})` gets a signal aborted when the call is
 * cancelled or the tool unregistered. Annotations kept: `readOnlyHint`,
 * `consequentialHint`, `untrustedContentHint`, `debugging`.
 *
 * The registry lives in this module's closure: page scripts reach it only
 * through that API. The server reaches it through the runtime's `webmcp`
 * bridge (list, call by call id, abort by call id), which offers nothing
 * the public API does not.
 *
 * No Node imports: bundled into the in-page runtime.
 */
import { fillForm, formSchema } from './webmcpForms.js';

/** How the runtime treats WebMCP: `--webmcp`. */
export type WebMcpMode = 'auto' | 'native' | 'polyfill';

/** A tool as the bridge lists it (annotations only where true). */
export interface BridgeTool {
  name: string;
  description: string;
  title?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: true; consequentialHint?: true; untrustedContentHint?: true; debugging?: true };
  /** The AgentScript that registered the tool; absent for the page's own tools. */
  scriptId?: string;
}

/** What a bridge call resolves to (it never rejects). */
export type BridgeResult =
  | {
    ok: true;
    /** The result as JSON text; absent for undefined. */
    json?: string;
    /** The tab's top window was closed (window.close()) when the tool settled; absent when it was not. */
    closed?: true;
  }
  | { ok: false; error: { name: string; message: string }; /** The tool is not (or no longer) registered. */ gone?: true; cancelled?: true };

/** The server's handle on the polyfill (`__tabwright.webmcp`). */
export interface WebMcpBridge {
  /** `polyfill` when installed here; `native` when the browser's own serves this document; `none` without either. */
  readonly state: 'polyfill' | 'native' | 'none';
  /** The tools, sorted by name; `state` when not polyfilled. */
  list(): BridgeTool[] | 'native' | 'none';
  /** Runs a tool; `id` names the call for `abort`. */
  call(id: string, name: string, input: Record<string, unknown>): Promise<BridgeResult>;
  /** Aborts a running call's signal; false when no such call runs. */
  abort(id: string): boolean;
  /**
   * Hands out, once per document, the registrar the userscript engine uses
   * to register an AgentScript's tools: such tools are listed
   * with their `scriptId` and refused to the page's `executeTool`. The
   * engine claims it at document start, before any page script runs; every
   * later call returns undefined. Undefined too where the polyfill is not installed.
   */
  claimScriptRegistrar(): { register(scriptId: string, tool: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<void> } | undefined;
}

interface Entry {
  name: string;
  description: string;
  title: string;
  schema?: string;
  annotations: BridgeTool['annotations'];
  execute?: (input: unknown, opts: { signal: AbortSignal }) => unknown;
  form?: HTMLFormElement;
  /** Called when the tool is unregistered while calls run. */
  onGone: Set<() => void>;
  /** The AgentScript that registered it: not callable through the page's executeTool. */
  scriptId?: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const HINTS = ['readOnlyHint', 'consequentialHint', 'untrustedContentHint', 'debugging'] as const;

/**
 * Installs the polyfill if `mode` asks for it and returns the bridge.
 * Runs once per document, at document start.
 */
export function installWebMcp(mode: WebMcpMode): WebMcpBridge {
  const hasNative = 'modelContext' in Document.prototype || 'modelContext' in document;
  if (mode === 'native' || (mode === 'auto' && hasNative)) {
    const state = hasNative ? 'native' : 'none';
    return Object.freeze({
      state,
      list: () => state,
      call: async () => ({ ok: false as const, gone: true as const, error: { name: 'NotSupportedError', message: 'WebMCP is not polyfilled in this document.' } }),
      abort: () => false,
      claimScriptRegistrar: () => undefined,
    });
  }

  // Taken before page scripts run, so later page changes to these globals do not reach us.
  const { stringify, parse } = JSON;
  const DOMEx = DOMException;
  const AbortCtl = AbortController;
  // window.closed as the browser reports it, whatever the page later defines on its window.
  const closedGetter = Object.getOwnPropertyDescriptor(window, 'closed')?.get ?? Object.getOwnPropertyDescriptor(Window.prototype, 'closed')?.get;
  const topClosed = (): boolean => {
    try {
      const top = window.top;
      if (top === window && closedGetter) return Boolean(closedGetter.call(window));
      return Boolean(top?.closed); // a child frame: `closed` of a cross-origin top is readable too
    } catch {
      return false;
    }
  };
  const tools = new Map<string, Entry>();
  const calls = new Map<string, AbortController>();
  /** Forms an agent call waits on: their next submit event is agent-invoked. */
  const pendingSubmits = new WeakMap<HTMLFormElement, (event: SubmitEvent) => void>();
  let registrarClaimed = false;

  const fail = (name: string, message: string) => Promise.reject(name === 'TypeError' ? new TypeError(message) : new DOMEx(message, name));

  class ModelContext extends EventTarget {
    ontoolchange: ((event: Event) => void) | null = null;

    registerTool(tool: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<void> {
      return register(tool, options, undefined);
    }

    unregisterTool(name: string): void {
      const entry = tools.get(String(name));
      if (entry) remove(entry);
    }

    getTools(): Promise<Array<Record<string, unknown>>> {
      return Promise.resolve(
        all().map(e => {
          const t: Record<string, unknown> = { name: e.name, description: e.description, title: e.title, origin: location.origin, window };
          if (e.schema !== undefined) t.inputSchema = parse(e.schema);
          if (Object.keys(e.annotations ?? {}).length) t.annotations = { ...e.annotations };
          return t;
        }),
      );
    }

    async executeTool(tool: { name?: string } | string, input: unknown, options: { signal?: AbortSignal } = {}): Promise<string> {
      const name = typeof tool === 'string' ? tool : String(tool?.name);
      const entry = find(name);
      if (!entry) throw new DOMEx(`No tool named "${name}"`, 'NotFoundError');
      // an AgentScript's tool runs only for tabwright (the bridge), behind the consent gate.
      if (entry.scriptId !== undefined) throw new DOMEx(`Tool "${name}" belongs to an AgentScript; only tabwright can call it.`, 'NotAllowedError');
      const args = typeof input === 'string' ? parse(input) : input;
      if (!args || typeof args !== 'object' || Array.isArray(args)) throw new TypeError('invalid input object: value is not an object');
      const ctl = new AbortCtl();
      options?.signal?.addEventListener('abort', () => ctl.abort(options.signal!.reason), { once: true });
      return stringify(await run(entry, args as Record<string, unknown>, ctl.signal)) ?? 'undefined';
    }
  }
  Object.defineProperty(ModelContext.prototype, Symbol.toStringTag, { value: 'ModelContext' });
  const context = new ModelContext();

  function register(tool: Record<string, unknown>, options: { signal?: AbortSignal } = {}, scriptId: string | undefined): Promise<void> {
    if (!tool || typeof tool.execute !== 'function') return fail('TypeError', "Failed to execute 'registerTool' on 'ModelContext': Required member 'execute' is undefined.");
    let schema: string | undefined;
    try {
      schema = tool.inputSchema === undefined ? undefined : stringify(tool.inputSchema);
    } catch (e) {
      return fail('TypeError', `Failed to execute 'registerTool' on 'ModelContext': ${(e as Error).message}`);
    }
    const name = String(tool.name ?? '');
    const description = String(tool.description ?? '');
    if (!NAME.test(name)) return fail('InvalidStateError', 'Invalid tool name');
    if (!description) return fail('InvalidStateError', 'Description is required');
    if (tools.has(name)) return fail('InvalidStateError', 'Duplicate tool name');
    const signal = options?.signal;
    if (signal?.aborted) return Promise.resolve();
    const given = (tool.annotations ?? {}) as Record<string, unknown>;
    const annotations: BridgeTool['annotations'] = {};
    for (const hint of HINTS) if (given[hint] === true) annotations[hint] = true;
    const entry: Entry = { name, description, title: String(tool.title ?? ''), schema, annotations, execute: tool.execute as Entry['execute'], onGone: new Set(), scriptId };
    tools.set(name, entry);
    signal?.addEventListener('abort', () => remove(entry), { once: true });
    changed();
    return Promise.resolve();
  }

  function remove(entry: Entry): void {
    if (tools.get(entry.name) !== entry) return;
    tools.delete(entry.name);
    for (const gone of [...entry.onGone]) gone();
    changed();
  }

  function changed(): void {
    queueMicrotask(() => {
      const event = new Event('toolchange');
      context.dispatchEvent(event);
      context.ontoolchange?.call(context, event);
    });
  }

  function formEntry(form: HTMLFormElement): Entry | undefined {
    const name = form.getAttribute('toolname') ?? '';
    const description = (form.getAttribute('tooldescription') ?? '').trim();
    if (!NAME.test(name) || !description) return undefined;
    return { name, description, title: '', schema: stringify(formSchema(form)), annotations: {}, form, onGone: new Set() };
  }

  /** Imperative and declarative tools, sorted by name (an imperative tool wins a name clash). */
  function all(): Entry[] {
    const out = new Map(tools);
    for (const form of Array.from(document.querySelectorAll<HTMLFormElement>('form[toolname][tooldescription]'))) {
      const entry = formEntry(form);
      if (entry && !out.has(entry.name)) out.set(entry.name, entry);
    }
    return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  function find(name: string): Entry | undefined {
    return tools.get(name) ?? all().find(e => e.name === name);
  }

  /** Runs a tool: `execute(input, {signal})`, or fills and submits a declarative form. */
  async function run(entry: Entry, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (entry.execute) return await entry.execute(input, { signal });
    const form = entry.form!;
    fillForm(form, input);
    return await new Promise<unknown>((resolve, reject) => {
      let seen = false;
      const settle = (event: SubmitEvent, responded: Promise<unknown> | undefined) => {
        if (responded) responded.then(resolve, reject);
        else resolve(event.defaultPrevented ? undefined : null);
      };
      pendingSubmits.set(form, event => {
        seen = true;
        let responded: Promise<unknown> | undefined;
        Object.defineProperty(event, 'agentInvoked', { value: true });
        Object.defineProperty(event, 'respondWith', {
          value: (value: unknown) => {
            responded = Promise.resolve(value);
          },
        });
        // Page listeners run after ours; read what they did once dispatch is over.
        if (form.hasAttribute('toolautosubmit')) queueMicrotask(() => settle(event, responded));
        else setTimeout(() => settle(event, responded), 0);
      });
      signal.addEventListener(
        'abort',
        () => {
          pendingSubmits.delete(form);
          reject(new DOMEx('The call was cancelled.', 'AbortError'));
        },
        { once: true },
      );
      if (form.hasAttribute('toolautosubmit')) {
        form.requestSubmit();
        if (!seen) {
          pendingSubmits.delete(form);
          reject(new DOMEx('The form did not submit: a field is invalid.', 'InvalidStateError'));
        }
      }
    });
  }

  // One capture listener from document start, so it runs before the page's own submit listeners.
  window.addEventListener(
    'submit',
    event => {
      const form = event.target as HTMLFormElement;
      const pending = pendingSubmits.get(form);
      if (!pending) return;
      pendingSubmits.delete(form);
      pending(event as SubmitEvent);
    },
    true,
  );

  const getter = { get: () => context, configurable: true, enumerable: true };
  // Both names, own properties that shadow a native browser's getters (an attached browser keeps its native
  // WebMCP under --webmcp polyfill; Chromium 150 puts it on navigator too): a page that registers through
  // either name reaches the polyfill tabwright reads.
  Object.defineProperty(document, 'modelContext', getter);
  Object.defineProperty(navigator, 'modelContext', getter);

  const toError = (e: unknown) => ({ name: e instanceof Error || e instanceof DOMEx ? (e as Error).name : 'Error', message: e instanceof Error || e instanceof DOMEx ? (e as Error).message : String(e) });

  return Object.freeze({
    state: 'polyfill' as const,
    list: (): BridgeTool[] =>
      all().map(e => {
        const t: BridgeTool = { name: e.name, description: e.description };
        if (e.title) t.title = e.title;
        if (e.schema !== undefined) t.inputSchema = parse(e.schema);
        if (Object.keys(e.annotations ?? {}).length) t.annotations = { ...e.annotations };
        if (e.scriptId !== undefined) t.scriptId = e.scriptId;
        return t;
      }),
    claimScriptRegistrar() {
      if (registrarClaimed) return undefined;
      registrarClaimed = true;
      return Object.freeze({ register: (scriptId: string, tool: Record<string, unknown>, options?: { signal?: AbortSignal }) => register(tool, options ?? {}, String(scriptId)) });
    },
    call(id: string, name: string, input: Record<string, unknown>): Promise<BridgeResult> {
      const entry = find(name);
      if (!entry) return Promise.resolve({ ok: false, gone: true, error: { name: 'NotFoundError', message: `No WebMCP tool named "${name}".` } });
      const ctl = new AbortCtl();
      calls.set(id, ctl);
      return new Promise<BridgeResult>(resolve => {
        let open = true;
        const done = (result: BridgeResult) => {
          if (!open) return;
          open = false;
          calls.delete(id);
          entry.onGone.delete(gone);
          resolve(result);
        };
        const gone = () => {
          done({ ok: false, gone: true, error: { name: 'NotFoundError', message: `WebMCP tool "${name}" was unregistered during the call.` } });
          ctl.abort(new DOMEx('The tool was unregistered.', 'AbortError'));
        };
        entry.onGone.add(gone);
        ctl.signal.addEventListener('abort', () => done({ ok: false, cancelled: true, error: { name: 'AbortError', message: 'The call was cancelled.' } }), { once: true });
        run(entry, input, ctl.signal).then(
          value => {
            try {
              const json = stringify(value);
              const result: BridgeResult = json === undefined ? { ok: true } : { ok: true, json };
              if (topClosed()) result.closed = true;
              done(result);
            } catch (e) {
              done({ ok: false, error: toError(e) });
            }
          },
          e => done({ ok: false, error: toError(e) }),
        );
      });
    },
    abort(id: string): boolean {
      const ctl = calls.get(id);
      if (!ctl) return false;
      ctl.abort(new DOMEx('The call was cancelled.', 'AbortError'));
      return true;
    },
  });
}
