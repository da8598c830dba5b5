/**
 * Injection of enabled userscripts and AgentScripts into the pages of the
 * session's browser context, launched or attached (docs/userscripts.md,
 * "Injection").
 *
 * - One Playwright init script (`BrowserContext.addInitScript`) holds the
 *   engine (./gmPage.ts) and every enabled script. Playwright installs it in
 *   every page and every frame, out-of-process iframes and popups included,
 *   before the target runs anything, so `document-start` scripts really run
 *   before the page's first script. The match decision is taken in the page,
 *   per frame, at document start (`scriptMatchesUrl` is bundled in).
 * - When the set changes (save, toggle, delete: `ScriptSource.onChange`) or a
 *   GM value changes, a new init script is added and the old one disposed.
 *   New documents get the new set; documents already open keep what ran
 *   until they are reloaded (`reload_tab`). GM value changes also reach open
 *   documents at once (`__tabwright_us_sync`).
 * - One binding (`exposeBinding`, name `BINDING`) carries the engine's
 *   messages (./gmPage.ts `EngineMessage`): GM value writes go to the store,
 *   GM_log and script errors to the tab's console buffer (tagged with the
 *   script), menu commands and the scripts that ran to the tab
 *   (src/session/tabScripts.ts), GM_setClipboard to the page's clipboard,
 *   GM_xmlhttpRequest, GM_download, GM_openInTab and GM_notification to
 *   ./gmServer.ts. Messages without the process's token are ignored.
 * - On the extension connection, when its chrome.userScripts is available
 *   ("Allow User Scripts"), the same init script is registered there instead
 *   (./extensionScripts.ts; docs/userscripts.md, "Through the extension"):
 *   its messages come through the extension (`UserScriptsHost.onMessage`),
 *   and the path is chosen again at every rebuild and `status()`.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { logger } from '../log.js';
import type { Tab } from '../session/tab.js';
import type { UserScriptsAvailability, UserScriptsHost, UserScriptsOrigin } from '../browser/connection.js';
import { ToolError } from '../errors.js';
import type { DeclaredPermission, ScriptAuthor, ScriptSource, StoredScript } from './types.js';
import type { EngineMessage, ServerMessage } from './gmPage.js';
import { tellEngine } from './engineHook.js';
import { buildInitScript, shippedResources, usesResources, type InitScript, type ScriptWithValues, type ShippedResource } from './injectionScript.js';
import { allowUserScriptsHint, registrationMatches, type InjectionStatus } from './extensionScripts.js';
import { usesPublicSuffix } from './match.js';
import { GmServer } from './gmServer.js';

const log = logger('userscripts');

/** The engine bundle (built by scripts/build.mjs from ./pageEntry.ts), without the Public Suffix List. */
export const ENGINE_PATH = fileURLToPath(new URL('../page/userscripts.js', import.meta.url));
/** The same engine with the Public Suffix List (tldts), injected while an enabled script has a `.tld` glob. */
export const ENGINE_PSL_PATH = fileURLToPath(new URL('../page/userscripts-psl.js', import.meta.url));

/** The binding's global name in the page (deleted by the engine before page scripts run). */
export const BINDING = '__tabwright_us';

interface Disposable {
  dispose(): Promise<void>;
}

/** Tools an AgentScript registered natively in one frame's document (no polyfill to attribute them). */
interface NativeOwners {
  doc: string;
  owners: Map<string, string>;
}

export class UserscriptInjector {
  private readonly token = randomBytes(24).toString('hex');
  /** GM_xmlhttpRequest, GM_download, GM_openInTab, GM_notification (./gmServer.ts). */
  private readonly gm = new GmServer(this.token);
  private ctx: BrowserContext | undefined;
  private tabFor: ((page: Page) => Promise<Tab>) | undefined;
  private current: Disposable | undefined;
  private chain: Promise<void> = Promise.resolve();
  private pending: Promise<void> | undefined;
  private unsubscribe: (() => void) | undefined;
  private engine: string | undefined;
  private enginePsl: string | undefined;
  private readonly nativeOwners = new WeakMap<Frame, NativeOwners>();
  private serial = 0;
  /** Each script's shipped `@resource` data and the version it was read at (resourcesOf). */
  private readonly shipped = new Map<string, { version: string; resources: ShippedResource[] }>();
  /** Recent init scripts by sourceURL, for `scriptOfStack`. */
  private readonly builds = new Map<string, InitScript>();
  /** The connection's chrome.userScripts (the extension), when it has one. */
  private host: UserScriptsHost | undefined;
  private hooked: UserScriptsHost | undefined;
  private path: InjectionStatus['path'] = 'cdp';
  private availability: UserScriptsAvailability | undefined;
  /** The extension path's event name and mark (./gmPage.ts PageConfig.bridge): secrets of this process. */
  private readonly bridge = { event: `tabwright-us-${randomBytes(12).toString('hex')}`, flag: `__tabwright_us_${randomBytes(12).toString('hex')}` };

  /**
   * @param source the store (src/userscripts/store.ts) or any ScriptSource.
   * @param version tabwright's version, for GM_info.version.
   */
  constructor(
    readonly source: ScriptSource,
    private readonly version: string,
    private readonly enginePath = ENGINE_PATH,
    private readonly enginePslPath = ENGINE_PSL_PATH,
  ) {}

  /**
   * Installs the binding and the init script in a (new) browser context.
   * Call after the in-page runtime's init script, so the runtime runs
   * first in each document (the engine claims the polyfill's AgentScript
   * registrar from it). With `host` (the extension's chrome.userScripts) the
   * scripts are registered there instead whenever it is available
   * (docs/userscripts.md, "Through the extension").
   */
  async install(ctx: BrowserContext, tabFor: (page: Page) => Promise<Tab>, host?: UserScriptsHost): Promise<void> {
    if (!existsSync(this.enginePath)) {
      log.warn(`userscript engine missing at ${this.enginePath}; run npm run build`);
      return;
    }
    this.engine ??= readFileSync(this.enginePath, 'utf8');
    this.ctx = ctx;
    this.tabFor = tabFor;
    this.current = undefined;
    this.host = host;
    if (host && this.hooked !== host) {
      host.onMessage((origin, msg) => this.onExtensionMessage(host, origin, msg));
      this.hooked = host;
    }
    await ctx.exposeBinding(BINDING, (source, token: unknown, msg: unknown) => this.onMessage(source.frame, source.page, token, msg));
    this.unsubscribe ??= this.source.onChange(() => void this.refresh());
    await this.refresh();
  }

  /**
   * Resolves once the init script reflects every change seen so far (a
   * save, toggle or delete notified by the store): the script tools await
   * it, so the next page an agent opens gets the new set.
   */
  settled(): Promise<void> {
    return this.chain;
  }

  /**
   * Runs `create` (a tab the session opens) between two init-script swaps, never during one: Playwright hands a page
   * the context's init scripts while it sets the page up, and a swap in that window (add the new script to the pages
   * it knows, drop the old from them) leaves the new page with neither. Pages the browser opens itself (popups)
   * cannot be held back this way.
   * @returns what `create` returns; its error is re-raised.
   */
  creatingPage<T>(create: () => Promise<T>): Promise<T> {
    const run = this.chain.then(create);
    this.chain = run.then(() => undefined, () => undefined);
    return run;
  }

  /** Stops following the store (the session is closing). */
  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /**
   * Rebuilds the init script from the store now (coalesced: calls made while
   * a rebuild waits share it). Resolves when new documents get the new set.
   */
  refresh(): Promise<void> {
    if (this.pending) return this.pending;
    const run = this.chain.then(async () => {
      this.pending = undefined;
      await this.rebuild();
    });
    this.pending = run;
    this.chain = run.catch(error => log.warn('userscript init script not updated:', error));
    return this.chain;
  }

  /**
   * Which way scripts reach pages now; on the extension connection it asks the extension first and switches the
   * path when the toggle changed since the last rebuild.
   */
  async status(): Promise<InjectionStatus> {
    const host = this.host;
    if (host && this.ctx) {
      const now = await host.availability();
      if (now.available !== (this.path === 'chrome.userScripts')) await this.refresh();
      else this.availability = now;
    }
    const availability = this.availability;
    return {
      path: this.path,
      ...(host && availability ? { userScripts: availability } : {}),
      ...(host && availability && /-off$/.test(availability.reason ?? '') ? { hint: allowUserScriptsHint(availability.chromeMajor) } : {}),
    };
  }

  private async rebuild(): Promise<void> {
    const ctx = this.ctx;
    if (!ctx || this.engine === undefined) return;
    const scripts = this.source.enabledScripts().map(script => ({ ...this.withValues(script), ...(usesResources(script) ? { resources: this.resourcesOf(script) } : {}) }));
    for (const id of this.shipped.keys()) if (!scripts.some(s => s.script.id === id && s.resources)) this.shipped.delete(id);
    // The Public Suffix List adds ~130 KB to every document's init script: only while a `.tld` glob needs it.
    const needsPsl = scripts.some(({ script }) => [...script.metadata.include, ...script.metadata.exclude].some(usesPublicSuffix));
    const engine = needsPsl && existsSync(this.enginePslPath) ? (this.enginePsl ??= readFileSync(this.enginePslPath, 'utf8')) : this.engine;
    if (await this.viaExtension(scripts, engine)) {
      const old = this.current;
      this.current = undefined;
      await old?.dispose().catch(() => undefined);
      return;
    }
    // Add the new one first, then drop the old: a document that starts in between runs the
    // older engine only (the second one sees the first's hook and does nothing).
    let next: Disposable | undefined;
    if (scripts.length) {
      const built = buildInitScript(scripts, { engine, token: this.token, binding: BINDING, version: this.version }, ++this.serial);
      this.keepBuild(built);
      next = (await ctx.addInitScript({ content: built.source })) as unknown as Disposable;
    }
    const old = this.current;
    this.current = next;
    await old?.dispose().catch(() => undefined);
  }

  /**
   * Registers the scripts through the extension's chrome.userScripts when it is available.
   * @param engine  the engine bundle the scripts need (with the public-suffix list or without).
   * @returns false when the CDP init script must carry them (no extension, the toggle off, or a refusal).
   */
  private async viaExtension(scripts: ScriptWithValues[], engine: string): Promise<boolean> {
    const host = this.host;
    if (!host) return false;
    const availability = await host.availability();
    this.availability = availability;
    if (availability.available) {
      const matches = registrationMatches(scripts.map(s => s.script));
      try {
        if (!scripts.length || !matches.length) await host.sync(undefined);
        else {
          const built = buildInitScript(scripts, { engine, token: this.token, binding: BINDING, version: this.version, bridge: this.bridge }, ++this.serial);
          this.keepBuild(built);
          await host.sync({ code: built.source, matches, ...this.bridge });
        }
        if (this.path !== 'chrome.userScripts') log.info('userscripts run through the extension\'s chrome.userScripts');
        this.path = 'chrome.userScripts';
        return true;
      } catch (error) {
        log.warn(`chrome.userScripts refused the scripts (${(error as Error).message}); injecting them over CDP`);
        this.availability = { ...availability, available: false, reason: 'failed' };
      }
    }
    if (this.path === 'chrome.userScripts') await host.sync(undefined).catch(() => undefined);
    this.path = 'cdp';
    return false;
  }

  private keepBuild(built: InitScript): void {
    this.builds.set(built.url, built);
    // Documents may still run older builds: keep the last few line maps.
    for (const url of [...this.builds.keys()].slice(0, -16)) this.builds.delete(url);
  }

  /**
   * A script's `@resource` data as the page gets it, read from the store and encoded once per version of the script
   * (its resources change only with a commit, which sets `updatedAt`): every GM value write rebuilds the init script.
   */
  private resourcesOf(script: StoredScript): ShippedResource[] {
    const version = `${script.updatedAt}:${script.codeHash}`;
    const cached = this.shipped.get(script.id);
    if (cached?.version === version) return cached.resources;
    const resources = shippedResources(this.source.resources(script.id));
    this.shipped.set(script.id, { version, resources });
    return resources;
  }

  private withValues(script: StoredScript): ScriptWithValues {
    const values: Record<string, string> = {};
    for (const key of this.source.listValues(script.id)) {
      const json = JSON.stringify(this.source.getValue(script.id, key));
      if (json !== undefined) values[key] = json;
    }
    return { script, values };
  }

  private onMessage(frame: Frame, page: Page, token: unknown, raw: unknown): Promise<unknown> {
    if (token !== this.token) return Promise.resolve(undefined);
    const where = { frame, page };
    return this.handle(raw, async () => where);
  }

  /** A message of the engine of a shared tab, as the extension's messenger forwarded it (Chrome's tab and frame ids). */
  private onExtensionMessage(host: UserScriptsHost, origin: UserScriptsOrigin, raw: unknown): Promise<unknown> {
    let found: Promise<{ frame: Frame; page: Page } | undefined> | undefined;
    const where = () => (found ??= (async () => {
      const page = await host.pageOf(origin.tabId);
      if (!page) return undefined;
      // Chrome's frame 0 is the main frame; a child frame is the first of the page's frames at the sender's URL.
      const frame = origin.frameId === 0 ? page.mainFrame() : page.frames().find(f => f !== page.mainFrame() && f.url() === origin.url);
      return frame ? { frame, page } : undefined;
    })());
    return this.handle(raw, where);
  }

  /**
   * One engine message (./gmPage.ts EngineMessage). `where` resolves the frame and page that sent it (undefined:
   * not known to the session, e.g. a popup the extension has not attached yet; what needs a tab is then dropped).
   */
  private async handle(raw: unknown, where: () => Promise<{ frame: Frame; page: Page } | undefined>): Promise<unknown> {
    if (!raw || typeof raw !== 'object' || !this.tabFor) return undefined;
    const msg = raw as EngineMessage;
    if (msg.t === 'gate') return undefined;
    if (msg.t === 'xhr-abort') {
      this.gm.abort(String(msg.rid));
      return undefined;
    }
    if (msg.t === 'values') {
      const answer: Record<string, Record<string, string>> = {};
      for (const id of Array.isArray(msg.ids) ? msg.ids.map(String) : []) if (this.source.get(id)) answer[id] = this.withValues(this.source.get(id)!).values;
      return answer;
    }
    if (msg.t === 'doc') {
      const at = await where();
      if (at) this.nativeOwners.set(at.frame, { doc: String(msg.doc), owners: new Map() });
      return undefined;
    }
    const script = this.source.get(String(msg.id));
    if (!script) return undefined;
    // Value writes first, before any await: a later message (another document's `values`) must see them.
    if (msg.t === 'set' || msg.t === 'del') {
      const key = String(msg.key);
      if (msg.t === 'set') this.source.setValue(script.id, key, JSON.parse(String(msg.json)));
      else this.source.deleteValue(script.id, key);
      this.broadcast({ t: 'value', id: script.id, key, json: msg.t === 'set' ? String(msg.json) : undefined }, (await where())?.frame);
      await this.refresh();
      return undefined;
    }
    const at = await where();
    if (!at) return undefined;
    const { frame, page } = at;
    const tab = await this.tabFor(page);
    switch (msg.t) {
      case 'ran':
        tab.userscripts.recordRun(script.id, script.name);
        return undefined;
      case 'log':
        this.logTo(tab, script, msg.level === 'error' ? 'error' : 'log', String(msg.text));
        return undefined;
      case 'menu':
        tab.userscripts.addMenuCommand({ commandId: String(msg.cmd), caption: String(msg.caption), scriptId: script.id, scriptName: script.name }, frame);
        return undefined;
      case 'clip':
        await this.setClipboard(frame, String(msg.text)).catch(error => this.logTo(tab, script, 'error', `GM_setClipboard failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`));
        return undefined;
      case 'tool': {
        const owners = this.nativeOwners.get(frame);
        if (owners && owners.doc === String(msg.doc)) owners.owners.set(String(msg.name), script.id);
        return undefined;
      }
      // The network and tab grants are the script's own: a message naming a script that does not grant them is dropped.
      case 'xhr':
        if (!grants(script, 'GM_xmlhttpRequest', 'GM.xmlHttpRequest')) return undefined;
        return this.gm.xhr({ frame, page, tab }, script, String(msg.rid), msg.req);
      case 'dl':
        if (!grants(script, 'GM_download', 'GM.download')) return undefined;
        return this.gm.download({ frame, page, tab }, script, { url: String(msg.url), name: String(msg.name ?? ''), headers: msg.headers ?? {}, body: typeof msg.body === 'string' ? msg.body : undefined });
      case 'tab':
        if (!grants(script, 'GM_openInTab', 'GM.openInTab')) return undefined;
        return this.gm.openTab({ frame, page, tab }, script, String(msg.url), msg.background === true);
      case 'tab-close':
        await this.gm.closeTab({ frame, page, tab }, script, Number(msg.tid));
        return undefined;
      case 'note':
        if (!grants(script, 'GM_notification', 'GM.notification')) return undefined;
        this.gm.notify(tab, script, String(msg.text).slice(0, 2000), String(msg.title ?? '').slice(0, 200), typeof msg.image === 'string' ? msg.image.slice(0, 500) : undefined);
        return undefined;
      default:
        return undefined;
    }
  }

  /** A GM_log line or a script's error, in the tab's console buffer with the script's name in front. */
  private logTo(tab: Tab, script: StoredScript, level: 'log' | 'error', text: string): void {
    tab.console.push({
      level,
      kind: level === 'error' ? 'exception' : 'console',
      text: `[${script.name}] ${text}`,
      script: { id: script.id, name: script.name },
      timestamp: Date.now(),
      revision: tab.revision,
    });
  }

  /** Sends a message to the engine of every frame of every page but `except` (fire and forget: a busy page answers later). */
  private broadcast(msg: ServerMessage, except?: Frame): void {
    for (const page of this.ctx?.pages() ?? []) {
      for (const frame of page.frames()) {
        if (frame === except) continue;
        tellEngine(frame, this.token, msg).catch(() => undefined);
      }
    }
  }

  /** GM_setClipboard: writes text to the clipboard through the page (the frame's origin is granted clipboard access). */
  private async setClipboard(frame: Frame, text: string): Promise<void> {
    const origin = new URL(frame.url()).origin;
    if (origin !== 'null') await this.ctx?.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await frame.evaluate(t => navigator.clipboard.writeText(t), text);
  }

  /**
   * Runs a menu command (GM_registerMenuCommand) in the frame that
   * registered it.
   * @throws ToolError invalid_arguments when the tab's current document has no such command.
   */
  async runMenuCommand(tab: Tab, commandId: string): Promise<void> {
    const frame = tab.userscripts.frameOf(commandId);
    if (!frame) throw new ToolError('invalid_arguments', `Tab ${tab.id} has no menu command "${commandId}".`, 'Call list_tabs: each tab lists its menuCommands (they go away when the page navigates).');
    const ran = await tellEngine(frame, this.token, { t: 'run-menu', cmd: commandId });
    if (!ran) throw new ToolError('invalid_arguments', `Menu command "${commandId}" is gone from tab ${tab.id}.`, 'Call list_tabs for the current menuCommands.');
  }

  /**
   * The script whose code threw, from an uncaught error's V8 stack (an error
   * thrown later in a timer or event handler the script set up): the first
   * frame in one of our init scripts names the build and the line. Undefined
   * when no frame is a script's.
   */
  scriptOfStack(stack: string | undefined): { id: string; name: string } | undefined {
    for (const m of (stack ?? '').matchAll(/(tabwright-userscripts-\d+\.js):(\d+):\d+/g)) {
      const line = Number(m[2]);
      const hit = this.builds.get(m[1]!)?.lines.find(l => line >= l.start && line <= l.end);
      if (!hit) continue;
      const script = this.source.get(hit.id);
      if (script) return { id: script.id, name: script.name };
    }
    return undefined;
  }

  /** The AgentScript that registered `name` natively in this frame's current document, if one did. */
  nativeOwner(frame: Frame, name: string): string | undefined {
    return this.nativeOwners.get(frame)?.owners.get(name);
  }

  /** What the consent gate needs from an AgentScript: its `@webmcp` permission for `tool` and its author. */
  declaration(scriptId: string, tool: string): { declared?: DeclaredPermission; author?: ScriptAuthor } {
    const script = this.source.get(scriptId);
    if (!script) return {};
    return { declared: script.metadata.webmcp.find(d => d.tool === tool)?.permission, author: script.author };
  }
}

/** Whether `script` grants one of `names` (a grant of either form provides both). */
function grants(script: StoredScript, ...names: string[]): boolean {
  return script.metadata.grant.some(g => names.includes(g));
}
