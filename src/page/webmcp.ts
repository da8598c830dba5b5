/**
 * The WebMCP polyfill of the in-page runtime (docs/webmcp.md, "The
 * polyfill"). Installed at document start, before page scripts, when the
 * browser has no native `document.modelContext` (mode `auto`), or over the
 * native one (mode `polyfill`); never in mode `native`.
 *
 * Page-facing API (Chromium 156's, read from the native browser and
 * asserted both ways by test/tools/webmcpConformance.test.ts; docs/webmcp.md
 * lists each point and what still differs): `Document.prototype.modelContext`
 * (plus `navigator.modelContext`, tabwright's fallback) is a `ModelContext`
 * (`window.ModelContext`, an EventTarget) with
 * - `registerTool(tool, {signal}?) → Promise<void>`: WebIDL conversions with
 *   Chromium's TypeErrors (missing or Symbol members, a non-function
 *   `execute`, a null or non-object inputSchema, `signal: null`), then
 *   InvalidStateError for an invalid name (1–128 of ASCII letters, digits,
 *   `_ - .`), an empty description or a taken name; the signal's reason when
 *   `signal` is already aborted. Aborting `signal` unregisters the tool,
 *   whatever the page's own abort listeners do;
 * - `unregisterTool(name)` (the Chrome 148 transition API, not in 156);
 * - `getTools() → Promise<RegisteredTool[]>`, sorted by name, imperative and
 *   declarative (`<form toolname tooldescription>`, registered by a
 *   MutationObserver; schemas from ./webmcpForms.ts);
 * - `executeTool(tool | name, input = {}, {signal}?) → Promise<string|null>`:
 *   the input goes to `execute` as JSON; a string result as it is, anything
 *   else as JSON text; a throwing tool is an UnknownError; aborting `signal`
 *   rejects with its reason, then aborts the tool's signal and fires
 *   `toolcancel`;
 * - `toolchange`, `toolactivated`, `toolcancel` events and their `on*`
 *   handler attributes (HTML event handler semantics), dispatched in tasks.
 *
 * What a listing needs beyond the tools (docs/webmcp.md, "What a listing
 * tells"): the bridge's `declarations()` reports the document's
 * `<form toolname>` elements and the registerTool calls refused for their
 * name or description, in both modes: under native WebMCP the runtime
 * wraps the prototype's `registerTool` (before page scripts run) to note
 * such refusals, the page still getting the browser's own answer.
 *
 * The registry lives in this module's closure: page scripts reach it only
 * through that API. The server reaches it through the runtime's `webmcp`
 * bridge (list, call by call id, abort by call id), which offers nothing
 * the public API does not.
 *
 * No Node imports: bundled into the in-page runtime.
 */
import { fillForm, formSchema } from './webmcpForms.js';
import { NativePromise, thenOf } from './natives.js';

/** How the runtime treats WebMCP: `--webmcp`. */
export type WebMcpMode = 'auto' | 'native' | 'polyfill';

/** A tool as the bridge lists it (annotations only where true). */
export interface BridgeTool {
  name: string;
  description: string;
  title?: string;
  inputSchema?: unknown;
  annotations?: { readOnlyHint?: true; consequentialHint?: true; untrustedContentHint?: true; debugging?: true };
  /**
   * Instead of `inputSchema`, when its JSON text is longer than INPUT_SCHEMA_MAX_CHARS: that length. Such a schema
   * is neither handed over nor shown, and the server refuses calls of the tool (it cannot check their arguments).
   */
  inputSchemaChars?: number;
  /** The AgentScript that registered the tool; absent for the page's own tools. */
  scriptId?: string;
  /** A declarative tool: its `<form>` submits itself on the call (`toolautosubmit`) or waits for the person's submit. */
  form?: { autosubmit: boolean };
}

/**
 * The longest inputSchema, in characters of JSON text, that a listing hands to the server: real tools' schemas are a
 * few kilobytes, and compiling a 6.7 MB one into a validator took the server from 133 MB to 750 MB
 * (docs/webmcp.md, "What a listing tells").
 */
export const INPUT_SCHEMA_MAX_CHARS = 262_144;

/** The longest tool name the bridge reports whole; longer ones are cut (their length is given). */
const NAME_REPORTED = 300;
/** The most forms and refused registrations `declarations()` reports per document. */
const DECLARATIONS_MAX = 50;

/** A `<form toolname>` of the document, whether or not it became a tool. */
export interface BridgeForm {
  /** The `toolname` attribute, cut to 300 characters. */
  name: string;
  /** The whole name's length, in UTF-16 code units. */
  nameLength: number;
  /** The `tooldescription` attribute; null when the form has none. */
  description: string | null;
  /** The `tooltitle` attribute ('' when absent). */
  title: string;
  autosubmit: boolean;
}

/** A registerTool call the browser refused for the tool's name or description. */
export interface BridgeRefusal {
  /** The tool's name as given, cut to 300 characters. */
  name: string;
  nameLength: number;
  /** The refusal's message (`Invalid tool name`, `Description is required`). */
  message: string;
}

/** The document's declarative forms and refused registrations, in document and call order (at most 50 each). */
export interface BridgeDeclarations {
  forms: BridgeForm[];
  refusals: BridgeRefusal[];
  /** How many forms and refusals were left out past the first 50 of each. */
  more: number;
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
  /**
   * The polyfill came after the document's own scripts had started (injected late: a document older than the session,
   * or one another DevTools client let run before the init script was in): tools it registered before went to the
   * browser's native WebMCP or nowhere, and the polyfill does not list them. False when installed at document start.
   */
  readonly late: boolean;
  /** The tools, sorted by name; `state` when not polyfilled. */
  list(): BridgeTool[] | 'native' | 'none';
  /** Runs a tool; `id` names the call for `abort`. */
  call(id: string, name: string, input: Record<string, unknown>): Promise<BridgeResult>;
  /** Aborts a running call's signal; false when no such call runs. */
  abort(id: string): boolean;
  /** The document's `<form toolname>` elements and refused registrations (polyfilled or native). */
  declarations(): BridgeDeclarations;
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
  /** All four hints when the tool gave `annotations`; undefined when it gave none. */
  annotations?: Annotations;
  /** The registration signal, and the dependent signal that unregisters the tool when it aborts. */
  signal?: AbortSignal;
  follower?: AbortSignal;
  execute?: (input: unknown, opts: { signal: AbortSignal }) => unknown;
  form?: HTMLFormElement;
  /** A declarative tool's form as registered (attributes and controls): a change re-registers it. */
  signature?: string;
  /** A form tool registered while the parser built the page: a registerTool call of its name takes the name from it. */
  parsed?: boolean;
  /** Called when the tool is unregistered while calls run. */
  onGone: Set<() => void>;
  /** The AgentScript that registered it: not callable through the page's executeTool. */
  scriptId?: string;
}

type Annotations = Record<(typeof HINTS)[number], boolean>;

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** What Chromium 156's executeTool answers for a tool whose result is the empty string. */
const EMPTY_RESULT = 'Operation succeeded';
/** In WebIDL dictionary order (lexicographic), the order Chromium reads them. */
const HINTS = ['consequentialHint', 'debugging', 'readOnlyHint', 'untrustedContentHint'] as const;
/** The order tabwright lists them in. */
const LISTED_HINTS = ['readOnlyHint', 'consequentialHint', 'untrustedContentHint', 'debugging'] as const;
/** The form attributes whose change re-registers a declarative tool (Chromium 156, observed). */
const FORM_ATTRS = ['toolname', 'tooldescription', 'tooltitle', 'toolautosubmit'];
/** The control attributes whose change re-registers the form's tool; `class`, `value` and label text do not. */
const CONTROL_ATTRS = ['name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'multiple', 'toolparamdescription', 'form'];
const CONTROL = /^(input|select|textarea)$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/**
 * Installs the polyfill if `mode` asks for it and returns the bridge.
 * Runs once per document, at document start.
 */
export function installWebMcp(mode: WebMcpMode): WebMcpBridge {
  const hasNative = 'modelContext' in Document.prototype || 'modelContext' in document;
  // An init script runs before the parser has seen anything (HTML "create and initialize a Document"; CDP
  // Page.addScriptToEvaluateOnNewDocument): a parsed <script> or a finished parse means this is a late injection.
  const late = document.readyState !== 'loading' || document.scripts.length > 0;
  const declared = declarationsRecorder();
  if (mode === 'native' || (mode === 'auto' && hasNative)) {
    const state = hasNative ? 'native' : 'none';
    if (hasNative) watchNativeRegistrations(declared.refused);
    if (hasNative && mode === 'auto') bridgeNavigatorModelContext();
    return Object.freeze({
      state,
      late,
      list: () => state,
      call: async () => ({ ok: false as const, gone: true as const, error: { name: 'NotSupportedError', message: 'WebMCP is not polyfilled in this document.' } }),
      abort: () => false,
      declarations: declared.read,
      claimScriptRegistrar: () => undefined,
    });
  }

  // Taken before page scripts run, so later page changes to these globals do not reach us.
  const { stringify, parse } = JSON;
  const DOMEx = DOMException;
  const AbortCtl = AbortController;
  const Signal = AbortSignal;
  const anySignal = AbortSignal.any.bind(AbortSignal);
  const { addEventListener: addListener, removeEventListener: removeListener, dispatchEvent: dispatch } = EventTarget.prototype;
  const later = window.setTimeout.bind(window);
  const defineProperty = Object.defineProperty;
  const MO = MutationObserver;
  const logError = console.error.bind(console);
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
  /** Imperative and declarative tools by name (one namespace: a name is taken by whichever registered first). */
  const tools = new Map<string, Entry>();
  const calls = new Map<string, AbortController>();
  /** Forms an agent call waits on: their next submit event is agent-invoked. */
  const pendingSubmits = new WeakMap<HTMLFormElement, (event: SubmitEvent) => void>();
  /** The submit events of agent calls, with what the page handed `respondWith()`. */
  const agentSubmits = new WeakMap<Event, { responded?: Promise<unknown> }>();
  let registrarClaimed = false;
  /** Lets the polyfill construct what page scripts cannot (`new ModelContext()` is an illegal constructor). */
  const KEY = Symbol('ModelContext');

  /** Runs `fn` in a task of its own: Chromium answers from the browser process, so nothing settles in a microtask. */
  const task = (fn: () => void): void => {
    later(fn, 0);
  };
  /** A JSON input text parsed; the text itself when it is not JSON (then refused as not an object). */
  const parseOr = (text: string): unknown => {
    try {
      return parse(text);
    } catch {
      return text;
    }
  };
  const error = (name: string, message: string): Error => (name === 'TypeError' ? new TypeError(message) : new DOMEx(message, name));
  const fail = (name: string, message: string) => Promise.reject(error(name, message));
  /** WebIDL DOMString: ToString, which refuses a Symbol. */
  const domString = (value: unknown): string => {
    if (typeof value === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
    return String(value);
  };
  /** WebIDL USVString: a DOMString with lone surrogates replaced by U+FFFD. */
  const usvString = (value: unknown): string => domString(value).replace(LONE_SURROGATES, '\uFFFD');
  const isObject = (value: unknown): value is Record<string, unknown> => (typeof value === 'object' && value !== null) || typeof value === 'function';
  /** Reads a dictionary member as Chromium's bindings do, prefixing a conversion error with the member and dictionary. */
  const member = <T>(dict: Record<string, unknown> | undefined, key: string, type: string, convert: (value: unknown) => T, required = false): T | undefined => {
    const value = dict?.[key];
    try {
      if (value === undefined) {
        if (required) throw new TypeError('Required member is undefined.');
        return undefined;
      }
      return convert(value);
    } catch (e) {
      throw new TypeError(`Failed to read the '${key}' property from '${type}': ${(e as Error).message}`);
    }
  };
  /** A dictionary argument: undefined and null are empty, another primitive is a TypeError. */
  const dictionary = (value: unknown, type: string): Record<string, unknown> | undefined => {
    if (value === undefined || value === null) return undefined;
    if (!isObject(value)) throw new TypeError(`The provided value is not of type '${type}'.`);
    return value;
  };
  /** `{signal}` of ModelContextRegisterToolOptions / ExecuteToolOptions: an AbortSignal or absent (null is a TypeError). */
  const signalOf = (options: unknown, type: string): AbortSignal | undefined =>
    member(dictionary(options, type), 'signal', type, value => {
      if (!(value instanceof Signal)) throw new TypeError("Failed to convert value to 'AbortSignal'.");
      return value;
    });

  const handlers = new Map<string, { value: unknown; listener?: (event: Event) => void }>();
  const toolNames = new WeakMap<Event, string>();

  class ModelContext extends EventTarget {
    constructor(key?: symbol) {
      if (key !== KEY) throw new TypeError("Failed to construct 'ModelContext': Illegal constructor");
      super();
    }

    registerTool(tool: unknown, options?: unknown): Promise<void> {
      if (this !== context) return fail('TypeError', "Failed to execute 'registerTool' on 'ModelContext': Illegal invocation");
      if (arguments.length < 1) return fail('TypeError', "Failed to execute 'registerTool' on 'ModelContext': 1 argument required, but only 0 present.");
      return register(tool, options, undefined);
    }

    /** Not in Chromium 156: the Chrome 148 transition API, kept for tabwright's own fallback. */
    unregisterTool(name: string): void {
      const entry = tools.get(String(name));
      if (entry && !entry.form) remove(entry);
    }

    getTools(): Promise<Array<Record<string, unknown>>> {
      if (this !== context) return fail('TypeError', "Failed to execute 'getTools' on 'ModelContext': Illegal invocation");
      // A RegisteredTool dictionary: members in lexicographic order, as Chromium converts it.
      const listed = all().map(e => {
        const t: Record<string, unknown> = {};
        if (e.annotations) t.annotations = { ...e.annotations };
        t.description = e.description;
        if (e.schema !== undefined || e.form) t.inputSchema = e.form ? formSchema(e.form) : parse(e.schema!);
        t.name = e.name;
        t.origin = location.origin;
        t.title = e.title;
        t.window = window;
        return t;
      });
      return new NativePromise(resolve => task(() => resolve(listed)));
    }

    executeTool(tool: unknown, input?: unknown, options?: unknown): Promise<string | null> {
      const op = "Failed to execute 'executeTool' on 'ModelContext': ";
      if (this !== context) return fail('TypeError', op + 'Illegal invocation');
      if (arguments.length < 1) return fail('TypeError', op + '1 argument required, but only 0 present.');
      let name: string;
      let signal: AbortSignal | undefined;
      let args: unknown;
      try {
        // A name is tabwright's extension (Chromium 156 wants a RegisteredTool from getTools()).
        name = typeof tool === 'string' ? tool : (member(dictionary(tool, 'RegisteredTool') ?? {}, 'name', 'RegisteredTool', domString) ?? 'undefined');
        if (!isObject(tool) && typeof tool !== 'string') throw new TypeError("The provided value is not of type 'RegisteredTool'.");
        signal = signalOf(options, 'ExecuteToolOptions');
      } catch (e) {
        return fail('TypeError', op + (e as Error).message);
      }
      // Chromium 156: `input` defaults to {} when omitted (trailing undefined arguments count as omitted,
      // so executeTool(tool, undefined) defaults too, but executeTool(tool, undefined, {}) is a TypeError).
      const given = input === undefined && options === undefined ? {} : typeof input === 'string' ? parseOr(input) : input;
      // Any object is accepted, an array too; null and primitives are refused. Like Chromium, the input goes
      // to the tool as JSON: `execute` gets a fresh object (toJSON applied, functions and symbols dropped).
      if (given === null || (typeof given !== 'object' && typeof given !== 'function')) return fail('TypeError', op + 'invalid input object: value is not an object');
      let json: string | undefined;
      try {
        json = stringify(given);
      } catch (e) {
        return fail('TypeError', op + (e as Error).message);
      }
      if (json === undefined) return fail('TypeError', op + 'invalid input object: toJSON() returns undefined');
      const args0 = parse(json) as unknown;
      if (args0 === null || typeof args0 !== 'object') return fail('UnknownError', 'Failed to parse input arguments');
      args = args0;
      const entry = find(name);
      if (!entry) {
        return typeof tool === 'string'
          ? Promise.reject(new DOMEx(`No tool named "${name}"`, 'NotFoundError'))
          : fail('UnknownError', 'The operation failed for an unknown transient reason (e.g. out of memory).');
      }
      // an AgentScript's tool runs only for tabwright (the bridge), behind the consent gate.
      if (entry.scriptId !== undefined) return Promise.reject(new DOMEx(`Tool "${name}" belongs to an AgentScript; only tabwright can call it.`, 'NotAllowedError'));
      // An aborted caller's signal rejects with its reason; an already-aborted one before the tool runs.
      if (signal?.aborted) return Promise.reject(signal.reason);
      const ctl = new AbortCtl();
      return new NativePromise<string | null>((resolve, reject) => {
        let state: 'queued' | 'running' | 'done' = 'queued';
        // Whether `execute` itself has settled: a tool that ends before the cancel task runs is not cancelled.
        let finished = false;
        const settle = (fn: () => void) => {
          if (state === 'done') return;
          state = 'done';
          entry.onGone.delete(gone);
          fn();
        };
        // A declarative tool's form removed or changed mid-call (Chromium 156's words); an imperative one stays pending.
        const gone = () => {
          if (entry.form) settle(() => reject(new DOMEx('Tool execution cancelled, since tool definition was updated', 'UnknownError')));
        };
        entry.onGone.add(gone);
        signal?.addEventListener(
          'abort',
          () => {
            const started = state === 'running';
            settle(() => reject(signal.reason));
            // The tool's own signal is aborted (with the default AbortError, not the caller's reason), then
            // toolcancel fires, both a task later (as Chromium 156), unless `execute` settled meanwhile (a tool
            // that awaited a call the same abort rejected).
            if (started) {
              task(() => {
                if (finished) return;
                ctl.abort();
                fire(ToolCancelEvent, 'toolcancel', entry.name);
              });
            }
          },
          { once: true },
        );
        task(() => {
          if (state !== 'queued') return;
          state = 'running';
          const running = run(entry, args as Record<string, unknown>, ctl.signal);
          fire(ToolActivatedEvent, 'toolactivated', entry.name);
          thenOf(running,
            value => {
              finished = true;
              let text: string | null;
              try {
                // A string result as it is (null where Chromium cannot carry it: a lone surrogate);
                // anything else as JSON text ('undefined' for undefined and what JSON drops).
                // Chromium 156 answers 'Operation succeeded' for ''.
                text = typeof value === 'string' ? (LONE_SURROGATE.test(value) ? null : value || EMPTY_RESULT) : (stringify(value) ?? 'undefined');
              } catch (e) {
                logError(`WebMCP tool execution failed: Uncaught ${String(e)}`);
                task(() => settle(() => reject(error('UnknownError', INVOCATION_FAILED))));
                return;
              }
              task(() => settle(() => resolve(text)));
            },
            e => {
              finished = true;
              if (!entry.form) logError(`WebMCP tool execution failed: Uncaught ${String(e)}`);
              task(() => settle(() => reject(entry.form && e instanceof DOMEx ? e : error('UnknownError', INVOCATION_FAILED))));
            },
          );
        });
      });
    }
  }
  const INVOCATION_FAILED = 'Tool was executed but the invocation failed. For example, the script function threw an error';

  // WebIDL shape (as Chromium 156): operations and attributes on the prototype, enumerable; event handler
  // attributes (HTML "event handler IDL attributes") hold one listener per type, added where first set, so it
  // runs in registration order with the other listeners; null (or a non-object) removes it.
  for (const key of ['registerTool', 'unregisterTool', 'getTools', 'executeTool']) {
    defineProperty(ModelContext.prototype, key, { enumerable: true });
  }
  for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
    defineProperty(ModelContext.prototype, 'on' + type, {
      enumerable: true,
      configurable: true,
      get(this: unknown) {
        if (this !== context) throw new TypeError('Illegal invocation');
        return handlers.get(type)?.value ?? null;
      },
      set(this: unknown, value: unknown) {
        if (this !== context) throw new TypeError('Illegal invocation');
        const slot = handlers.get(type) ?? { value: null };
        handlers.set(type, slot);
        if (!isObject(value)) {
          if (slot.listener) removeListener.call(context, type, slot.listener);
          slot.listener = undefined;
          slot.value = null;
          return;
        }
        slot.value = value;
        if (!slot.listener) {
          // A non-callable object throws here, reported like any listener's exception.
          slot.listener = event => void Reflect.apply(slot.value as (e: Event) => unknown, context, [event]);
          addListener.call(context, type, slot.listener);
        }
      },
    });
  }
  defineProperty(ModelContext.prototype, Symbol.toStringTag, { value: 'ModelContext', configurable: true });
  shape(ModelContext, 'ModelContext', 0, ['ontoolchange', 'ontoolactivated', 'ontoolcancel', 'executeTool', 'getTools', 'registerTool', 'unregisterTool', 'constructor']);
  for (const [key, length] of [['registerTool', 1], ['executeTool', 1]] as const) defineProperty(ModelContext.prototype[key], 'length', { value: length });

  /** The event of toolactivated / toolcancel: `toolName`, the tool the agent (or the page's executeTool) ran. */
  class ToolEvent extends Event {
    constructor(type: string, init?: EventInit & { toolName?: unknown }) {
      super(domString(type), init ?? undefined);
      toolNames.set(this, init?.toolName === undefined ? '' : domString(init.toolName));
    }

    get toolName(): string {
      const name = toolNames.get(this);
      if (name === undefined) throw new TypeError('Illegal invocation');
      return name;
    }
  }
  class ToolActivatedEvent extends ToolEvent {}
  class ToolCancelEvent extends ToolEvent {}
  defineProperty(ToolEvent.prototype, 'toolName', { enumerable: true });
  defineProperty(ToolActivatedEvent.prototype, 'toolName', Object.getOwnPropertyDescriptor(ToolEvent.prototype, 'toolName')!);
  defineProperty(ToolCancelEvent.prototype, 'toolName', Object.getOwnPropertyDescriptor(ToolEvent.prototype, 'toolName')!);
  Object.setPrototypeOf(ToolActivatedEvent.prototype, Event.prototype);
  Object.setPrototypeOf(ToolCancelEvent.prototype, Event.prototype);
  defineProperty(ToolActivatedEvent.prototype, Symbol.toStringTag, { value: 'ToolActivatedEvent', configurable: true });
  defineProperty(ToolCancelEvent.prototype, Symbol.toStringTag, { value: 'ToolCancelEvent', configurable: true });
  shape(ToolActivatedEvent, 'ToolActivatedEvent', 1, ['toolName', 'constructor']);
  shape(ToolCancelEvent, 'ToolCancelEvent', 1, ['toolName', 'constructor']);

  const context = new ModelContext(KEY);

  /** Gives an interface object Chromium's name and length, and its prototype's properties in Chromium's order. */
  function shape(ctor: Function, name: string, length: number, keys: string[]): void {
    defineProperty(ctor, 'name', { value: name });
    defineProperty(ctor, 'length', { value: length });
    const proto = ctor.prototype as object;
    const descriptors = keys.map(key => [key, Object.getOwnPropertyDescriptor(proto, key)!] as const);
    for (const [key] of descriptors) delete (proto as Record<string, unknown>)[key];
    for (const [key, descriptor] of descriptors) defineProperty(proto, key, descriptor);
  }

  function fire(Kind: typeof ToolActivatedEvent, type: string, toolName: string): void {
    dispatch.call(context, new Kind(type, { toolName }));
  }

  function register(tool: unknown, options: unknown, scriptId: string | undefined): Promise<void> {
    const op = "Failed to execute 'registerTool' on 'ModelContext': ";
    let converted: { annotations?: Annotations; description: string; execute: Entry['execute']; given: unknown; name: string; title: string };
    let signal: AbortSignal | undefined;
    try {
      if (tool === null || (tool !== undefined && !isObject(tool))) throw new TypeError("The provided value is not of type 'ModelContextTool'.");
      const dict = tool as Record<string, unknown> | undefined;
      const T = 'ModelContextTool';
      // Members in WebIDL dictionary order (lexicographic), each read once, as Chromium's bindings read them.
      const annotations = member(dict, 'annotations', T, value => {
        const hints = dictionary(value, 'ToolAnnotations');
        const out = {} as Annotations;
        for (const hint of HINTS) out[hint] = Boolean(hints?.[hint]);
        return out;
      });
      const description = member(dict, 'description', T, domString, true)!;
      const execute = member(dict, 'execute', T, value => {
        if (typeof value !== 'function') throw new TypeError('The given value is not a function.');
        return value as Entry['execute'];
      }, true);
      // WebIDL `object inputSchema`: null and primitives fail the conversion.
      const given = member(dict, 'inputSchema', T, value => {
        if (!isObject(value)) throw new TypeError("Failed to convert value to 'object'.");
        return value;
      });
      const name = member(dict, 'name', T, domString, true)!;
      const title = member(dict, 'title', T, usvString) ?? '';
      converted = { annotations, description, execute, given, name, title };
      signal = signalOf(options, 'ModelContextRegisterToolOptions');
    } catch (e) {
      return fail('TypeError', op + (e as Error).message);
    }
    const { given, name } = converted;
    let schema: string | undefined;
    try {
      schema = given === undefined ? undefined : stringify(given);
    } catch (e) {
      return fail('TypeError', op + (e as Error).message);
    }
    // An object whose JSON serialization is undefined (a function, toJSON() returning undefined).
    if (given !== undefined && schema === undefined) return fail('TypeError', op + 'invalid input schema: toJSON() returns undefined');
    if (!NAME.test(name)) {
      declared.refused(name, 'Invalid tool name');
      return fail('InvalidStateError', 'Invalid tool name');
    }
    if (!converted.description) {
      declared.refused(name, 'Description is required');
      return fail('InvalidStateError', 'Description is required');
    }
    sync();
    // Chromium 156 registers the forms the parser builds a moment later than the polyfill's observer sees them:
    // a registerTool call in a script after such a form takes the name, and the form is left out (observed). A
    // form added later, once registered, makes the name a duplicate.
    const taken = tools.get(name);
    if (taken && !taken.parsed) return fail('InvalidStateError', 'Duplicate tool name');
    // An already-aborted signal rejects with its reason, and nothing is registered.
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Chromium 156 carries the description as UTF-8 and loses it whole over a lone surrogate.
    const description = LONE_SURROGATE.test(converted.description) ? '' : converted.description;
    const entry: Entry = { name, description, title: converted.title, schema, annotations: converted.annotations, execute: converted.execute, onGone: new Set(), scriptId, signal };
    if (taken) remove(taken, true);
    tools.set(name, entry);
    if (signal) {
      // Unregistration must not depend on the page's listeners (one may stopImmediatePropagation() the abort
      // event): a dependent signal the page cannot reach follows `signal`, and reads prune aborted entries.
      entry.follower = anySignal([signal]);
      entry.follower.addEventListener('abort', () => remove(entry), { once: true });
    }
    // toolchange, then the promise settles, in one task (as Chromium 156, where both come back from the browser).
    return new NativePromise(resolve => task(() => {
      dispatch.call(context, new Event('toolchange'));
      resolve();
    }));
  }

  /** Drops the tools whose registration signal is aborted (for when its abort event did not reach us). */
  function prune(): void {
    for (const entry of [...tools.values()]) if (entry.signal?.aborted) remove(entry);
  }

  function remove(entry: Entry, quiet = false): void {
    if (tools.get(entry.name) !== entry) return;
    tools.delete(entry.name);
    for (const gone of [...entry.onGone]) gone();
    if (!quiet) changed();
  }

  function changed(): void {
    task(() => dispatch.call(context, new Event('toolchange')));
  }

  // Declarative tools (Chromium 156, observed): a form is registered when it is inserted, or gets its tool
  // attributes, with a valid `toolname`, a `tooldescription` (empty or not) and a name no tool has; one toolchange.
  // Removing it (or making it invalid) unregisters it: one toolchange. A change to its tool attributes or to its
  // controls' schema attributes (or moving it) unregisters and registers it again: two toolchange events, a task
  // apart. A form whose name was taken is not registered later when the name frees up, only when it changes.
  function formEntry(form: HTMLFormElement): Entry | undefined {
    const name = form.getAttribute('toolname') ?? '';
    // A `tooldescription` as written, an empty one too (Chromium 156 lists such a form); none at all: no tool.
    const description = form.getAttribute('tooldescription');
    if (!NAME.test(name) || description === null) return undefined;
    return { name, description, title: form.getAttribute('tooltitle') ?? '', form, signature: signatureOf(form), onGone: new Set() };
  }

  function signatureOf(form: HTMLFormElement): string {
    const controls = Array.from(form.elements)
      .filter(el => CONTROL.test(el.localName))
      .map(el => [el.localName, ...CONTROL_ATTRS.map(a => el.getAttribute(a))]);
    return stringify([FORM_ATTRS.map(a => form.getAttribute(a)), controls]);
  }

  /** The forms with a `toolname` at or under `node` (only those can be tools). */
  const formsIn = (node: Node, out: Set<HTMLFormElement>): void => {
    if (!(node instanceof Element)) return;
    if (node.localName === 'form' && node.hasAttribute('toolname')) out.add(node as HTMLFormElement);
    if (node.firstElementChild) for (const form of Array.from(node.querySelectorAll<HTMLFormElement>('form[toolname]'))) out.add(form);
  };
  const hasControl = (node: Node): boolean => node instanceof Element && (CONTROL.test(node.localName) || node.querySelector('input,select,textarea') !== null);

  function process(records: MutationRecord[]): void {
    if (!records.length) return;
    const touched = new Set<HTMLFormElement>();
    const moved = new Set<HTMLFormElement>();
    let controls = false;
    // Control changes matter only to registered forms.
    const watching = [...tools.values()].some(e => e.form);
    for (const record of records) {
      const target = record.target as Element;
      if (record.type === 'attributes') {
        if (target.localName === 'form') touched.add(target as HTMLFormElement);
        else if (watching && CONTROL.test(target.localName)) controls = true;
        continue;
      }
      for (const node of Array.from(record.addedNodes)) {
        formsIn(node, touched);
        if (watching && !controls && hasControl(node)) controls = true;
      }
      for (const node of Array.from(record.removedNodes)) {
        if (watching) formsIn(node, moved);
        if (watching && !controls && hasControl(node)) controls = true;
      }
    }
    // While the parser builds the page, a form's controls arrive after the form: no re-registration for them.
    const loading = parsing && document.readyState !== 'complete';
    for (const entry of [...tools.values()]) {
      const form = entry.form;
      if (!form) continue;
      const now = form.isConnected ? formEntry(form) : undefined;
      if (!now) {
        remove(entry);
      } else if (moved.has(form) || ((touched.has(form) || controls) && now.signature !== entry.signature)) {
        if (loading && !moved.has(form) && now.name === entry.name && !touched.has(form)) {
          entry.signature = now.signature;
          continue;
        }
        remove(entry, true);
        changed();
        if (!tools.has(now.name)) {
          tools.set(now.name, now);
          changed();
        }
      }
      touched.delete(form);
    }
    for (const form of [...touched, ...moved]) {
      if (!form.isConnected || [...tools.values()].some(e => e.form === form)) continue;
      const entry = formEntry(form);
      if (entry && !tools.has(entry.name)) {
        if (loading) entry.parsed = true;
        tools.set(entry.name, entry);
        changed();
      }
    }
  }

  // Whether the parser may still add nodes, as the observer sees its records: readyState turns `interactive` when
  // the parser stops, before the observer gets the last of its records; DOMContentLoaded comes after them.
  let parsing = document.readyState === 'loading';
  if (parsing) document.addEventListener('DOMContentLoaded', () => void (parsing = false), { once: true, capture: true });

  const observer = new MO(process);
  observer.observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: [...FORM_ATTRS, ...CONTROL_ATTRS] });

  /** Brings the registry up to date: aborted registrations and DOM changes the observer has not delivered yet. */
  function sync(): void {
    prune();
    process(observer.takeRecords());
  }

  /** Imperative and declarative tools, sorted by name. */
  function all(): Entry[] {
    sync();
    return [...tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  function find(name: string): Entry | undefined {
    sync();
    return tools.get(name);
  }

  /** Runs a tool: `execute(input, {signal})`, or fills and submits a declarative form. */
  async function run(entry: Entry, input: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    if (entry.execute) return await entry.execute(input, { signal });
    const form = entry.form!;
    const autosubmit = form.hasAttribute('toolautosubmit');
    // Chromium 156 refuses, before filling anything, a form that only a person can submit but has no submit button.
    if (!autosubmit && !Array.from(form.elements).some(el => (el as HTMLButtonElement | HTMLInputElement).type === 'submit' || (el.localName === 'input' && (el as HTMLInputElement).type === 'image'))) {
      throw new DOMEx('No submit button was found, but for a form without `toolautosubmit`, there must be a submit button', 'UnknownError');
    }
    fillForm(form, input);
    return await new NativePromise<unknown>((resolve, reject) => {
      let seen = false;
      const onReset = () => {
        pendingSubmits.delete(form);
        reject(new DOMEx('Tool execution cancelled by a form reset', 'UnknownError'));
      };
      form.addEventListener('reset', onReset, { once: true });
      const settle = (event: SubmitEvent, responded: Promise<unknown> | undefined) => {
        form.removeEventListener('reset', onReset);
        if (responded) thenOf(responded, resolve, reject);
        else resolve(event.defaultPrevented ? undefined : null);
      };
      pendingSubmits.set(form, event => {
        seen = true;
        const agent: { responded?: Promise<unknown> } = {};
        agentSubmits.set(event, agent);
        // Page listeners run after ours; read what they did once dispatch is over.
        if (autosubmit) queueMicrotask(() => settle(event, agent.responded));
        else later(() => settle(event, agent.responded), 0);
      });
      signal.addEventListener(
        'abort',
        () => {
          pendingSubmits.delete(form);
          form.removeEventListener('reset', onReset);
          reject(new DOMEx('The call was cancelled.', 'AbortError'));
        },
        { once: true },
      );
      if (autosubmit) {
        form.requestSubmit();
        if (!seen) {
          pendingSubmits.delete(form);
          form.removeEventListener('reset', onReset);
          // Chromium 156's words: each invalid control's name and validation message.
          const invalid = Array.from(form.elements).filter(el => (el as HTMLInputElement).willValidate && !(el as HTMLInputElement).validity.valid) as HTMLInputElement[];
          reject(new DOMEx(`Form validation failed: ${invalid.map(el => `${el.name}: ${el.validationMessage}. `).join('')}`, 'UnknownError'));
        }
      }
    });
  }

  // SubmitEvent's WebMCP members (Chromium 156): `agentInvoked` (false for a person's submit) and `respondWith()`.
  // Over a native WebMCP tabwright could not switch off, the polyfill's own agent submits answer here and the
  // browser's members serve the rest (its own calls).
  const proto = SubmitEvent.prototype as unknown as Record<string, unknown>;
  const nativeInvoked = Object.getOwnPropertyDescriptor(proto, 'agentInvoked')?.get;
  const nativeRespond = proto.respondWith as ((this: Event, value: unknown) => void) | undefined;
  const configurable = !('agentInvoked' in proto) || Object.getOwnPropertyDescriptor(proto, 'agentInvoked')?.configurable !== false;
  if (configurable) {
    defineProperty(SubmitEvent.prototype, 'agentInvoked', {
      get(this: Event) {
        return agentSubmits.has(this) || (nativeInvoked ? Boolean(nativeInvoked.call(this)) : false);
      },
      enumerable: true,
      configurable: true,
    });
    defineProperty(SubmitEvent.prototype, 'respondWith', {
      value: function respondWith(this: Event, value: unknown) {
        const agent = agentSubmits.get(this);
        if (!agent) {
          if (nativeRespond) return nativeRespond.call(this, value);
          throw new DOMEx("Failed to execute 'respondWith' on 'SubmitEvent': You can only call respondWith on an submit event that has agentInvoked == true.", 'InvalidStateError');
        }
        agent.responded = NativePromise.resolve(value);
      },
      writable: true,
      enumerable: true,
      configurable: true,
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
  if (hasNative) {
    // A browser with native WebMCP that tabwright could not switch off (attached over CDP): own properties
    // shadow its getters, so a page that registers through either name reaches the polyfill tabwright reads.
    defineProperty(document, 'modelContext', getter);
  } else {
    // As natively: an accessor on Document.prototype (no own property on document).
    defineProperty(Document.prototype, 'modelContext', {
      get(this: unknown) {
        if (!(this instanceof Document)) throw new TypeError('Illegal invocation');
        return this === document ? context : null;
      },
      configurable: true,
      enumerable: true,
    });
  }
  // Not in Chromium 156 (150 had it): tabwright's fallback and older pages use navigator.modelContext.
  defineProperty(navigator, 'modelContext', getter);
  for (const [key, value] of [['ModelContext', ModelContext], ['ToolActivatedEvent', ToolActivatedEvent], ['ToolCancelEvent', ToolCancelEvent]] as const) {
    defineProperty(window, key, { value, writable: true, configurable: true, enumerable: false });
  }

  const toError = (e: unknown) => ({ name: e instanceof Error || e instanceof DOMEx ? (e as Error).name : 'Error', message: e instanceof Error || e instanceof DOMEx ? (e as Error).message : String(e) });

  return Object.freeze({
    state: 'polyfill' as const,
    late,
    list: (): BridgeTool[] =>
      all().map(e => {
        const t: BridgeTool = { name: e.name, description: e.description };
        if (e.title) t.title = e.title;
        if (e.form) t.inputSchema = formSchema(e.form);
        else if (e.schema !== undefined && e.schema.length > INPUT_SCHEMA_MAX_CHARS) t.inputSchemaChars = e.schema.length;
        else if (e.schema !== undefined) t.inputSchema = parse(e.schema);
        // The declared hints, only the true ones; none when the tool declared no annotations.
        if (e.annotations) t.annotations = Object.fromEntries(LISTED_HINTS.filter(h => e.annotations?.[h]).map(h => [h, true]));
        if (e.scriptId !== undefined) t.scriptId = e.scriptId;
        if (e.form) t.form = { autosubmit: e.form.hasAttribute('toolautosubmit') };
        return t;
      }),
    declarations: declared.read,
    claimScriptRegistrar() {
      if (registrarClaimed) return undefined;
      registrarClaimed = true;
      return Object.freeze({ register: (scriptId: string, tool: Record<string, unknown>, options?: { signal?: AbortSignal }) => register(tool, options, String(scriptId)) });
    },
    call(id: string, name: string, input: Record<string, unknown>): Promise<BridgeResult> {
      const entry = find(name);
      if (!entry) return NativePromise.resolve({ ok: false, gone: true, error: { name: 'NotFoundError', message: `No WebMCP tool named "${name}".` } });
      const ctl = new AbortCtl();
      calls.set(id, ctl);
      return new NativePromise<BridgeResult>(resolve => {
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
        ctl.signal.addEventListener(
          'abort',
          () => {
            // tabwright's cancellation is the agent's: the page hears toolcancel, as for a native call.
            if (open) task(() => fire(ToolCancelEvent, 'toolcancel', entry.name));
            done({ ok: false, cancelled: true, error: { name: 'AbortError', message: 'The call was cancelled.' } });
          },
          { once: true },
        );
        const running = run(entry, input, ctl.signal);
        fire(ToolActivatedEvent, 'toolactivated', entry.name);
        thenOf(running,
          value => {
            try {
              const json = stringify(value === '' ? EMPTY_RESULT : value);
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

/**
 * Keeps what `declarations()` reports: refused registrations as they
 * happen (the first 50), and the document's forms read at each call, with
 * DOM methods taken at document start (page changes to them do not reach it).
 */
function declarationsRecorder(): { refused(name: string, message: string): void; read(): BridgeDeclarations } {
  const refusals: BridgeRefusal[] = [];
  let more = 0;
  const query = Document.prototype.querySelectorAll;
  const getAttribute = Element.prototype.getAttribute;
  const hasAttribute = Element.prototype.hasAttribute;
  const cut = (name: string) => ({ name: name.slice(0, NAME_REPORTED), nameLength: name.length });
  return {
    refused(name: string, message: string): void {
      if (refusals.length < DECLARATIONS_MAX) refusals.push({ ...cut(name), message });
      else more++;
    },
    read(): BridgeDeclarations {
      const found = Array.from(query.call(document, 'form[toolname]'));
      const forms = found.slice(0, DECLARATIONS_MAX).map(form => ({
        ...cut(getAttribute.call(form, 'toolname') ?? ''),
        description: getAttribute.call(form, 'tooldescription'),
        title: getAttribute.call(form, 'tooltitle') ?? '',
        autosubmit: hasAttribute.call(form, 'toolautosubmit'),
      }));
      return { forms, refusals: refusals.slice(), more: more + Math.max(0, found.length - DECLARATIONS_MAX) };
    },
  };
}

/**
 * Native WebMCP: replaces the prototype's `registerTool` (at document
 * start, before page scripts) with one that calls the browser's own and
 * notes a refusal for the tool's name or description (InvalidStateError
 * `Invalid tool name` / `Description is required`; Chromium 150 throws,
 * 156 rejects). The page gets the browser's answer unchanged: the same
 * exception, or a promise settled as the browser's (an unhandled rejection
 * is still reported as the page's). Left as it is where the property cannot be
 * replaced.
 */
/**
 * Mode `auto` on a browser with native WebMCP: pages written for older Chrome builds (148-150) register through
 * `navigator.modelContext`, which Chromium 156 no longer has; they would show no tools. This gives them a
 * `navigator.modelContext` that forwards to the native `document.modelContext` (docs/webmcp.md, "navigator.modelContext
 * under native WebMCP"): `registerTool`, `getTools`, `executeTool`, the event listener methods and the `on*` handler
 * attributes go to the native object; `unregisterTool(name)` (the 148 transition API) aborts a signal the bridge
 * passed to the native `registerTool` with the page's own. A page's own `navigator.modelContext` (a property it
 * defines later) wins: the bridge is configurable. Not installed when the browser still has one, nor in mode `native`.
 */
function bridgeNavigatorModelContext(): void {
  if ('modelContext' in navigator) return;
  const native = (document as unknown as { modelContext?: Record<string, unknown> }).modelContext;
  if (!native) return;
  const call = (name: string, args: unknown[]): unknown => Reflect.apply(native[name] as (...a: unknown[]) => unknown, native, args);
  const Ctl = AbortController;
  const anySignal = AbortSignal.any.bind(AbortSignal);
  const then = Promise.prototype.then;
  /** The bridge's controller of each tool it registered, by name, while registered. */
  const registered = new Map<string, AbortController>();
  const bridge: Record<string, unknown> = {
    registerTool(tool: unknown, options?: { signal?: AbortSignal }) {
      let name = '';
      try {
        name = String((tool as { name?: unknown } | null)?.name ?? '');
      } catch {
        // a throwing name getter: the native call reports it
      }
      const ctl = new Ctl();
      const signal = options?.signal instanceof AbortSignal ? anySignal([options.signal, ctl.signal]) : ctl.signal;
      const result = call('registerTool', [tool, { ...(options ?? {}), signal }]);
      if (!(result instanceof Promise)) return result;
      return Reflect.apply(then, result, [
        (value: unknown) => {
          registered.set(name, ctl);
          ctl.signal.addEventListener('abort', () => registered.get(name) === ctl && registered.delete(name), { once: true });
          options?.signal?.addEventListener?.('abort', () => registered.get(name) === ctl && registered.delete(name), { once: true });
          return value;
        },
      ]);
    },
    // As the polyfill's: a name this bridge did not register (or a declarative form's) is ignored.
    unregisterTool(name: unknown) {
      const ctl = registered.get(String(name));
      registered.delete(String(name));
      ctl?.abort();
    },
    getTools: (...args: unknown[]) => call('getTools', args),
    executeTool: (...args: unknown[]) => call('executeTool', args),
    addEventListener: (...args: unknown[]) => call('addEventListener', args),
    removeEventListener: (...args: unknown[]) => call('removeEventListener', args),
    dispatchEvent: (...args: unknown[]) => call('dispatchEvent', args),
  };
  for (const handler of ['ontoolchange', 'ontoolactivated', 'ontoolcancel']) {
    if (!(handler in native)) continue;
    Object.defineProperty(bridge, handler, { get: () => native[handler], set: (value: unknown) => void (native[handler] = value), enumerable: true });
  }
  Object.defineProperty(navigator, 'modelContext', { value: Object.freeze(bridge), configurable: true, enumerable: true, writable: false });
}

function watchNativeRegistrations(refused: (name: string, message: string) => void): void {
  const target = (document as unknown as { modelContext?: object }).modelContext ?? (navigator as unknown as { modelContext?: object }).modelContext;
  const proto = target && (Object.getPrototypeOf(target) as object | null);
  const desc = proto ? Object.getOwnPropertyDescriptor(proto, 'registerTool') : undefined;
  const original = desc?.value as ((...args: unknown[]) => unknown) | undefined;
  if (!proto || !desc || typeof original !== 'function' || !desc.configurable) return;
  const { apply } = Reflect;
  const then = Promise.prototype.then;
  const DOMEx = DOMException;
  const note = (tool: unknown, error: unknown) => {
    if (!(error instanceof DOMEx) || error.name !== 'InvalidStateError' || !/Invalid tool name|Description is required/.test(error.message)) return;
    let name = '';
    try {
      name = String((tool as { name?: unknown } | null)?.name ?? '');
    } catch {
      // a name getter that throws: reported as empty
    }
    refused(name, /Invalid tool name/.test(error.message) ? 'Invalid tool name' : 'Description is required');
  };
  const wrapper = {
    registerTool(this: unknown, ...args: unknown[]): unknown {
      let result: unknown;
      try {
        result = apply(original, this, args);
      } catch (error) {
        note(args[0], error);
        throw error;
      }
      if (!(result instanceof Promise)) return result;
      return apply(then, result, [
        undefined,
        (error: unknown) => {
          note(args[0], error);
          throw error;
        },
      ]);
    },
  }.registerTool;
  Object.defineProperty(wrapper, 'length', { value: original.length });
  try {
    Object.defineProperty(proto, 'registerTool', { ...desc, value: wrapper });
  } catch {
    // left as is: refusals are then not reported
  }
}
