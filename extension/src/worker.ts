/**
 * The extension's service worker (docs/own-browser.md, "Extension"): dials the tabwright server's relay port at
 * /extension, pairs (mutual HMAC, src/browser/extension/protocol.ts), and relays CDP over chrome.debugger for the
 * tabs the user shared, through the policy gate (./gate.ts). State that must outlive the worker (the pairing, the
 * shared set) lives in chrome.storage.local (trusted contexts only); a chrome.alarms tick redials while paired, so
 * a server that starts later is reached even after the worker was stopped. A reconnect opens no tab and asks
 * nothing: the shared set is read back from storage.
 */
import {
  CLOSE, DEFAULT_LINK_PORT, LINK_PATH, LINK_PROTOCOL, decodeKey, transcript,
  type EventFrame, type RequestFrame, type ResponseFrame, type SharedTab,
} from '../../src/browser/extension/protocol.js';
import { CACHE_FEATURE, CacheMiss, StringCache, decodeCached } from '../../src/browser/extension/frameCache.js';
import { Denied, checkCommand, debuggableUrl, originsOf } from './gate.js';
import * as userScripts from './userScripts.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const dbg = (chrome as any).debugger as ChromeDebuggerApi;

const REDIAL_ALARM = 'tabwright-redial';
/** How long a link may take from dialling to the server's welcome, in ms (a loopback handshake takes milliseconds). */
const HANDSHAKE_MS = 10_000;
const GROUP_TITLE = 'tabwright';
const bootId = hex(crypto.getRandomValues(new Uint8Array(8)));

interface Pairing { code: string; port: number }
interface Stored { pairing?: Pairing; shared?: number[] }

/** What pages (popup, pairing page) see of the worker. */
export interface Status {
  paired: boolean;
  port: number;
  state: 'unpaired' | 'connecting' | 'connected' | 'disconnected';
  lastError?: string;
  shared: SharedTab[];
  /** The tabs chrome.debugger is attached to now (shared tabs tabwright drives). */
  attached: number[];
  bootId: string;
}

let socket: WebSocket | undefined;
let linked = false;
let lastError: string | undefined;
let retryMs = 500;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
const shared = new Set<number>();
const attached = new Set<number>();
/** Tabs the server created (Target.createTarget → tabs.create): their own onCreated must not count as a popup. */
const creating = new Set<number>();
/** Tabs being closed for the server (tabs.close): their beforeunload dialog is accepted. */
const closing = new Set<number>();
const groups = new Map<number, number>();
/** The tab whose page opened a shared popup (webNavigation's sourceTabId), by the popup's tab id. */
const openers = new Map<number, number>();
/** The last URL of every shared tab (the cookie gate's origins), kept from tabs.onUpdated. */
const urls = new Map<number, string>();
let loaded: Promise<void> | undefined;
/** The large scripts the server sent once (../../src/browser/extension/frameCache.ts), for this link only. */
const scripts = new StringCache();

function hex(bytes: Uint8Array): string {
  return [...bytes].map(b => b.toString(16).padStart(2, '0')).join('');
}

async function hmac(key: Uint8Array, text: string): Promise<string> {
  const k = await crypto.subtle.importKey('raw', new Uint8Array(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(new Uint8Array(await crypto.subtle.sign('HMAC', k, new TextEncoder().encode(text))));
}

async function stored(): Promise<Stored> {
  return await chrome.storage.local.get(['pairing', 'shared']) as Stored;
}

function load(): Promise<void> {
  loaded ??= (async () => {
    await chrome.storage.local.setAccessLevel?.({ accessLevel: 'TRUSTED_CONTEXTS' }).catch(() => undefined);
    const { shared: ids = [] } = await stored();
    const open = new Set((await chrome.tabs.query({})).map(t => t.id));
    for (const id of ids) if (open.has(id)) shared.add(id);
    await saveShared();
    await fileAccess();
    await sharedTabs();
  })();
  return loaded;
}

async function saveShared(): Promise<void> {
  await chrome.storage.local.set({ shared: [...shared] });
}

// ---- the link -------------------------------------------------------------------------------------------

let dialing: Promise<void> | undefined;

/** Opens the link if paired and not linked or dialling already (the alarm, a page and the worker's start may all ask). */
function dial(): Promise<void> {
  dialing ??= open().finally(() => {
    dialing = undefined;
  });
  return dialing;
}

async function open(): Promise<void> {
  await load();
  if (socket) return;
  const { pairing } = await stored();
  if (!pairing) return;
  const key = decodeKey(pairing.code);
  if (!key) {
    lastError = 'the stored pairing code is not valid: pair again';
    return;
  }
  clearTimeout(retryTimer);
  const ws = new WebSocket(`ws://127.0.0.1:${pairing.port}${LINK_PATH}`);
  socket = ws;
  linked = false;
  // The server's mirror of the string cache is per link: a new socket starts both empty.
  scripts.clear();
  const clientNonce = hex(crypto.getRandomValues(new Uint8Array(32)));
  const extId = chrome.runtime.id;
  let stage: 'challenge' | 'welcome' | 'linked' = 'challenge';
  // A link whose handshake stalls (the socket never opens, or the server never answers) would hold `socket` and
  // keep every later dial from trying again: past HANDSHAKE_MS it is closed, and the close redials.
  const handshake = setTimeout(() => {
    if (socket !== ws || linked) return;
    lastError = `the server on 127.0.0.1:${pairing.port} did not finish the handshake within ${HANDSHAKE_MS / 1000} s`;
    ws.close();
  }, HANDSHAKE_MS);
  ws.onopen = () => {
    ws.send(JSON.stringify({ t: 'hello', v: [LINK_PROTOCOL, LINK_PROTOCOL], extId, extVersion: chrome.runtime.getManifest().version, bootId, clientNonce, userAgent: navigator.userAgent, features: [CACHE_FEATURE] }));
  };
  ws.onmessage = async (event: MessageEvent) => {
    const frame = JSON.parse(String(event.data)) as { t?: string; serverNonce?: string; serverProof?: string; m?: string; id?: number; p?: Record<string, unknown> };
    if (stage === 'challenge') {
      if (frame.t !== 'challenge' || typeof frame.serverNonce !== 'string') return ws.close(CLOSE.unauthorized, 'no challenge');
      const expected = await hmac(key, transcript('server', clientNonce, frame.serverNonce, extId));
      if (expected !== frame.serverProof) {
        // Whoever listens on the port does not hold our key (a port squatter, or a server paired with another key).
        lastError = 'the server on this port does not hold the pairing key: pair again with `tabwright pairing-key`';
        return ws.close(CLOSE.unauthorized, 'wrong server proof');
      }
      stage = 'welcome';
      ws.send(JSON.stringify({ t: 'auth', proof: await hmac(key, transcript('ext', frame.serverNonce, clientNonce, extId)) }));
      return;
    }
    if (stage === 'welcome') {
      if (frame.t !== 'welcome') return ws.close(CLOSE.unauthorized, 'no welcome');
      stage = 'linked';
      linked = true;
      clearTimeout(handshake);
      lastError = undefined;
      retryMs = 500;
      void refreshIndicators();
      return;
    }
    if (typeof frame.m === 'string' && typeof frame.id === 'number') void answer(ws, frame as RequestFrame);
    else if (typeof frame.id === 'number') answered(frame as ResponseFrame);
  };
  ws.onclose = (event: CloseEvent) => {
    clearTimeout(handshake);
    for (const [id, waiter] of asked) if (waiter.socket === ws) {
      asked.delete(id);
      waiter.reject(new Error('the link closed'));
    }
    if (socket !== ws) return;
    socket = undefined;
    const wasLinked = linked;
    linked = false;
    // A server that was there a moment ago is likely back soon (a restart): start the backoff over.
    if (wasLinked) retryMs = 500;
    if (event.code === CLOSE.unauthorized && !lastError) lastError = 'the server refused the pairing: paste the code of `tabwright pairing-key` on the pairing page';
    else if (!wasLinked && !lastError) lastError = `no tabwright server on 127.0.0.1:${pairing.port}`;
    void linkDown();
    scheduleRedial();
  };
}

function scheduleRedial(): void {
  clearTimeout(retryTimer);
  // While the worker lives it retries with backoff; once Chrome stops it, the alarm wakes it (every 30 s).
  retryTimer = setTimeout(() => void dial(), retryMs);
  retryMs = Math.min(retryMs * 2, 15_000);
}

/** The link went away: detach every tab (Chrome shows no debugger bar then) and take the indicators down; the shared set stays. */
async function linkDown(): Promise<void> {
  // tabwright's userscripts run only while tabwright is there (as its CDP injector's do).
  await userScripts.sync(undefined).catch(() => undefined);
  flagged.clear();
  for (const tabId of [...attached]) await dbg.detach({ tabId }).catch(() => undefined);
  attached.clear();
  await clearIndicators();
}

/** Our own requests to the server (`us.message`), by id, waiting for its answer. */
const asked = new Map<number, { resolve(r: unknown): void; reject(e: Error): void; socket: WebSocket }>();
let nextAsk = 1;

/** Asks the server `m` over the link. @throws Error when the link is down or the server answers with an error. */
function ask(m: string, p: Record<string, unknown>): Promise<unknown> {
  const ws = socket;
  if (!ws || !linked || ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('not linked'));
  const id = nextAsk++;
  return new Promise((resolve, reject) => {
    asked.set(id, { resolve, reject, socket: ws });
    ws.send(JSON.stringify({ id, m, p }));
  });
}

function answered(frame: ResponseFrame): void {
  const waiter = asked.get(frame.id);
  if (!waiter) return;
  asked.delete(frame.id);
  if (frame.e) waiter.reject(new Error(frame.e.message));
  else waiter.resolve(frame.r);
}

function send(frame: ResponseFrame | EventFrame): void {
  if (socket && linked && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
}

function emit(ev: string, p: Record<string, unknown>): void {
  send({ ev, p });
}

async function answer(ws: WebSocket, frame: RequestFrame): Promise<void> {
  if (frame.m === 'cdp.send') {
    relay(frame.p ?? {}, (r, error) => {
      if (ws !== socket) return;
      if (error) send({ id: frame.id, e: { code: error instanceof Denied || error instanceof CacheMiss ? error.code : 'failed', message: error.message } });
      else send({ id: frame.id, r: r ?? {} });
    });
    return;
  }
  try {
    const r = await handle(frame.m, frame.p ?? {});
    if (ws === socket) send({ id: frame.id, r: r ?? {} });
  } catch (error) {
    const code = error instanceof Denied ? error.code : 'failed';
    if (ws === socket) send({ id: frame.id, e: { code, message: error instanceof Error ? error.message : String(error) } });
  }
}

// ---- requests of the server -------------------------------------------------------------------------------

/** Whether "Allow access to file URLs" is on (refreshed on every query; the gate reads the last answer). */
let fileAccessAllowed = false;
async function fileAccess(): Promise<boolean> {
  fileAccessAllowed = await chrome.extension.isAllowedFileSchemeAccess().catch(() => false);
  return fileAccessAllowed;
}

async function sharedTab(tabId: unknown): Promise<chrome.Tab> {
  if (typeof tabId !== 'number' || !shared.has(tabId)) throw new Denied('not_shared', `tab ${String(tabId)} is not shared with tabwright.`);
  return await chrome.tabs.get(tabId);
}

async function info(tab: chrome.Tab): Promise<SharedTab> {
  if (tab.id !== undefined && shared.has(tab.id)) urls.set(tab.id, tab.url || tab.pendingUrl || '');
  return { tabId: tab.id!, url: tab.url || tab.pendingUrl || '', title: tab.title ?? '', windowId: tab.windowId, ...(openers.has(tab.id!) ? { openerTabId: openers.get(tab.id!) } : {}) };
}

async function sharedTabs(): Promise<SharedTab[]> {
  const tabs = await chrome.tabs.query({});
  return Promise.all(tabs.filter(t => t.id !== undefined && shared.has(t.id)).map(info));
}

/**
 * One CDP command of a shared, attached tab, through the gate. Synchronous up to chrome.debugger, and answered in
 * its callback (not a promise, whose extra hops let later events overtake the answer): commands and answers keep
 * the order Chrome gives them, which CDP clients rely on (a target's setup before Runtime.runIfWaitingForDebugger,
 * Page.getFrameTree's answer before the execution contexts of its frames). The gate reads only what the worker
 * keeps in memory: the shared set, the tabs' last URLs, file access.
 */
/** Commands sent to chrome.debugger and not answered yet, by tab. */
const inflight = new Map<number, number>();

/**
 * Resolves once the tab's commands are answered (at most 500 ms): a tab that closes answers its last commands
 * (a script that called window.close() returns) before Chrome reports the detach, but on another path, so the
 * detach is held back until the answers went out, as a DevTools socket would order them.
 */
async function settled(tabId: number): Promise<void> {
  for (let waited = 0; inflight.has(tabId) && waited < 500; waited += 20) await new Promise(resolve => setTimeout(resolve, 20));
}

function relay(p: Record<string, unknown>, done: (result: unknown, error?: Error) => void): void {
  try {
    // First, whatever else fails: the server counted this frame's puts and refs when it sent it.
    const params = decodeCached(scripts, (p.params ?? {}) as Record<string, unknown>, p.put, p.ref);
    const tabId = p.tabId;
    if (typeof tabId !== 'number' || !shared.has(tabId)) throw new Denied('not_shared', `tab ${String(tabId)} is not shared with tabwright.`);
    if (!attached.has(tabId)) throw new Denied('not_shared', `tab ${tabId} is not attached.`);
    const method = String(p.method);
    checkCommand(method, params, originsOf([...shared].map(id => urls.get(id))), fileAccessAllowed, inputLocked(tabId));
    inflight.set(tabId, (inflight.get(tabId) ?? 0) + 1);
    dbg.sendCommand({ tabId, ...(typeof p.sessionId === 'string' ? { sessionId: p.sessionId } : {}) }, method, params, result => {
      const left = (inflight.get(tabId) ?? 1) - 1;
      if (left > 0) inflight.set(tabId, left);
      else inflight.delete(tabId);
      const failure = chrome.runtime.lastError;
      if (failure) done(undefined, new Error(failure.message));
      else done(result);
    });
  } catch (error) {
    done(undefined, error instanceof Error ? error : new Error(String(error)));
  }
}

async function handle(m: string, p: Record<string, unknown>): Promise<unknown> {
  await load();
  switch (m) {
    case 'ping':
      return { at: p.at };
    case 'tabs.list':
      return { tabs: await sharedTabs() };
    case 'cdp.attach': {
      const tab = await sharedTab(p.tabId);
      await attach(tab);
      return { tab: await info(tab) };
    }
    case 'cdp.detach': {
      const tabId = Number(p.tabId);
      flagged.delete(tabId);
      if (attached.delete(tabId)) await dbg.detach({ tabId }).catch(() => undefined);
      return {};
    }
    case 'tabs.create': {
      const url = typeof p.url === 'string' && p.url ? p.url : 'about:blank';
      if (!debuggableUrl(url, await fileAccess())) throw new Denied('scheme_denied', `cannot open ${url}.`);
      // The agent's new tab opens in a window the user shares a tab of, else the last focused one.
      const near = (await sharedTabs())[0];
      const tab = await chrome.tabs.create({ url, active: true, ...(near ? { windowId: near.windowId } : {}) });
      creating.add(tab.id!);
      await share(tab.id!, false);
      creating.delete(tab.id!);
      return { tab: await info(await chrome.tabs.get(tab.id!)) };
    }
    case 'tabs.close': {
      const tab = await sharedTab(p.tabId);
      // Target.closeTarget closes without asking; chrome.tabs.remove runs beforeunload: accept its "Leave site?".
      closing.add(tab.id!);
      try {
        await chrome.tabs.remove(tab.id!);
      } finally {
        closing.delete(tab.id!);
      }
      return {};
    }
    case 'tabs.activate': {
      const tab = await sharedTab(p.tabId);
      await chrome.tabs.update(tab.id!, { active: true });
      return {};
    }
    case 'us.status':
      return await userScripts.availability();
    case 'us.sync': {
      const next = typeof p.code === 'string' && Array.isArray(p.matches) && typeof p.event === 'string' && typeof p.flag === 'string'
        ? { code: p.code, matches: p.matches.map(String), event: p.event, flag: p.flag }
        : undefined;
      await userScripts.sync(next);
      await flagAttached();
      return {};
    }
    case 'consent.ask':
      return await askConsent(p);
    case 'consent.cancel':
      for (const [nonce, pending] of consents) if (pending.askId === p.askId) {
        pending.resolve({ decision: 'cancelled' });
        consents.delete(nonce);
      }
      return {};
    default:
      throw new Denied('method_denied', `unknown request ${m}.`);
  }
}

async function attach(tab: chrome.Tab): Promise<void> {
  if (attached.has(tab.id!)) return;
  const url = tab.url || tab.pendingUrl;
  if (!debuggableUrl(url, await fileAccess()) || url?.startsWith(chrome.runtime.getURL(''))) {
    throw new Denied('not_debuggable', `tab ${tab.id} shows ${url}, which tabwright may not drive.`);
  }
  try {
    await dbg.attach({ tabId: tab.id }, '1.3');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (!/already attached/i.test(message)) throw new Denied('not_debuggable', `cannot attach to tab ${tab.id}: ${message}`);
  }
  attached.add(tab.id!);
  await flag(tab.id!);
}

// ---- userscripts (./userScripts.ts) ----------------------------------------------------------------------

/** The mark script of each attached shared tab (Page.addScriptToEvaluateOnNewDocument): its flag and identifier. */
const flagged = new Map<number, { flag: string; identifier: string }>();

/** Marks the new documents of a shared, attached tab for the registered engine (or takes an old mark away). */
async function flag(tabId: number): Promise<void> {
  const want = userScripts.registration()?.flag;
  const have = flagged.get(tabId);
  if (have?.flag === want) return;
  flagged.delete(tabId);
  if (have) await dbg.sendCommand({ tabId }, 'Page.removeScriptToEvaluateOnNewDocument', { identifier: have.identifier }).catch(() => undefined);
  if (!want || !attached.has(tabId) || !shared.has(tabId)) return;
  try {
    const { identifier } = await dbg.sendCommand({ tabId }, 'Page.addScriptToEvaluateOnNewDocument', { source: userScripts.flagSource(want) }) as { identifier: string };
    flagged.set(tabId, { flag: want, identifier });
  } catch {
    // a tab that went away meanwhile: its popup's documents ask the worker instead
  }
}

async function flagAttached(): Promise<void> {
  for (const tabId of [...attached]) await flag(tabId);
}

/**
 * A message of the messenger (a registered user script, USER_SCRIPT world): `gate` is answered here (is the sender's
 * tab shared?), the others go to the server, only from a shared tab while linked; anything else gets no answer.
 */
async function onUserScriptMessage(message: { tabwright?: number; msg?: { t?: string } }, sender: chrome.MessageSender): Promise<unknown> {
  await load();
  const tabId = sender.tab?.id;
  const allowed = linked && tabId !== undefined && shared.has(tabId) && userScripts.registration() !== undefined;
  if (message?.tabwright !== 1 || !message.msg || typeof message.msg !== 'object') return undefined;
  if (message.msg.t === 'gate') return allowed;
  if (!allowed) return undefined;
  return await ask('us.message', { tabId, frameId: sender.frameId ?? 0, url: sender.url ?? '', msg: message.msg });
}

// ---- consent ----------------------------------------------------------------------------------------------

/** A consent question waiting for the user, by its nonce. */
interface PendingConsent {
  /** The server's id of the question (consent.cancel names it). */
  askId: unknown;
  windowId: number;
  tabId?: number;
  title: string;
  detail: string;
  expires: number;
  resolve(answer: { decision: string }): void;
}
const consents = new Map<string, PendingConsent>();

/** True while a consent question about `tabId` is open: the gate refuses Input.* there. */
function inputLocked(tabId: number): boolean {
  for (const pending of consents.values()) if (pending.tabId === tabId) return true;
  return false;
}

/**
 * Asks the user in a popup window of ours (never in a page: the agent's CDP can click there) and resolves with
 * `{decision: 'once' | 'always' | 'deny' | 'never' | 'timeout'}`; closing the window is 'deny'.
 */
async function askConsent(p: Record<string, unknown>): Promise<{ decision: string }> {
  const nonce = hex(crypto.getRandomValues(new Uint8Array(16)));
  const timeoutMs = Math.min(Math.max(Number(p.timeoutMs) || 300_000, 1000), 600_000);
  const win = await chrome.windows.create({ type: 'popup', url: chrome.runtime.getURL(`consent.html?req=${nonce}`), width: 480, height: 380, focused: true });
  return await new Promise(resolve => {
    const finish = (decision: string) => {
      if (!consents.delete(nonce)) return;
      clearTimeout(timer);
      if (win.id !== undefined) void chrome.windows.remove(win.id).catch(() => undefined);
      resolve({ decision });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    consents.set(nonce, {
      askId: p.askId,
      windowId: win.id ?? -1,
      ...(typeof p.tabId === 'number' ? { tabId: p.tabId } : {}),
      title: String(p.title ?? 'tabwright asks'),
      detail: String(p.detail ?? ''),
      expires: Date.now() + timeoutMs,
      resolve: ({ decision }) => finish(decision),
    });
  });
}

/** The pending question a consent page asks for, only from the window made for it. */
function consentFor(req: unknown, sender: chrome.MessageSender): PendingConsent {
  const pending = typeof req === 'string' ? consents.get(req) : undefined;
  if (!pending || pending.expires < Date.now()) throw new Error('This question is not pending (answered, expired or unknown).');
  if (!sender.url?.startsWith(chrome.runtime.getURL('consent.html')) || sender.tab?.windowId !== pending.windowId) {
    throw new Error('An answer counts only from the consent window tabwright opened for it.');
  }
  return pending;
}

chrome.windows.onRemoved.addListener(windowId => {
  for (const pending of consents.values()) if (pending.windowId === windowId) pending.resolve({ decision: 'deny' });
});

// ---- sharing ----------------------------------------------------------------------------------------------

async function share(tabId: number, announce: boolean): Promise<void> {
  shared.add(tabId);
  await saveShared();
  await indicate(tabId);
  if (announce) emit('share.changed', { tabs: await sharedTabs() });
}

async function unshare(tabId: number, reason: string): Promise<void> {
  if (!shared.delete(tabId)) return;
  urls.delete(tabId);
  await saveShared();
  flagged.delete(tabId);
  if (attached.delete(tabId)) {
    await dbg.detach({ tabId }).catch(() => undefined);
    // Chrome reports no onDetach for our own detach: say it ourselves.
    emit('cdp.detached', { tabId, reason });
  }
  await chrome.tabs.ungroup(tabId).catch(() => undefined);
  await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => undefined);
  emit('share.changed', { tabs: await sharedTabs() });
}

/** The tab group and the badge of a shared tab (only while linked: they tell the truth about who drives it). */
async function indicate(tabId: number): Promise<void> {
  if (!linked) return;
  try {
    const tab = await chrome.tabs.get(tabId);
    const known = groups.get(tab.windowId);
    const groupId = await chrome.tabs.group({ tabIds: tabId, ...(known !== undefined ? { groupId: known } : { createProperties: { windowId: tab.windowId } }) })
      .catch(() => chrome.tabs.group({ tabIds: tabId, createProperties: { windowId: tab.windowId } }));
    if (known !== groupId) {
      groups.set(tab.windowId, groupId);
      await chrome.tabGroups.update(groupId, { title: GROUP_TITLE, color: 'orange' });
    }
    await chrome.action.setBadgeText({ tabId, text: 'AI' });
    await chrome.action.setBadgeBackgroundColor({ tabId, color: '#d9480f' });
  } catch {
    // a tab that closed meanwhile
  }
}

async function refreshIndicators(): Promise<void> {
  for (const tabId of shared) await indicate(tabId);
}

async function clearIndicators(): Promise<void> {
  const ids = [...shared];
  if (ids.length) await chrome.tabs.ungroup(ids).catch(() => undefined);
  for (const tabId of ids) await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => undefined);
  groups.clear();
}

// ---- browser events ---------------------------------------------------------------------------------------

dbg.onEvent.addListener((source, method, params) => {
  if (source.tabId === undefined || !attached.has(source.tabId)) return;
  if (method === 'Page.javascriptDialogOpening' && closing.has(source.tabId) && !source.sessionId) {
    void dbg.sendCommand({ tabId: source.tabId }, 'Page.handleJavaScriptDialog', { accept: true }).catch(() => undefined);
  }
  emit('cdp.event', { tabId: source.tabId, ...(source.sessionId ? { sessionId: source.sessionId } : {}), method, params: params ?? {} });
});

dbg.onDetach.addListener((source, reason) => {
  if (source.tabId !== undefined) flagged.delete(source.tabId);
  if (source.tabId === undefined || !attached.delete(source.tabId)) return;
  const tabId = source.tabId;
  void settled(tabId).then(() => emit('cdp.detached', { tabId, reason }));
});

// A popup of a shared tab (window.open, target=_blank, noopener too) follows its opener into the shared set.
// webNavigation names the tab whose page opened it; tabs' own openerTabId is the tab strip's (the active tab).
chrome.webNavigation.onCreatedNavigationTarget.addListener(details => {
  void (async () => {
    await load();
    if (!shared.has(details.sourceTabId) || shared.has(details.tabId) || creating.has(details.tabId)) return;
    openers.set(details.tabId, details.sourceTabId);
    // Shared at once; stored and grouped after it is announced (those are slow, and a click waits for its popup).
    shared.add(details.tabId);
    const indicated = () => void saveShared().then(() => indicate(details.tabId));
    // Attach at once and say so with the target's id: the server announces it without a round trip of its own
    // (a click that opened it waits for it only briefly).
    const tab = await chrome.tabs.get(details.tabId).catch(() => undefined);
    let targetId: string | undefined;
    if (tab && linked) {
      try {
        await attach(tab);
        targetId = ((await dbg.sendCommand({ tabId: details.tabId }, 'Target.getTargetInfo', {})) as { targetInfo: { targetId: string } }).targetInfo.targetId;
      } catch {
        // not debuggable (yet): the server attaches it itself
      }
    }
    emit('tab.opened', { tabId: details.tabId, openerTabId: details.sourceTabId, ...(tab ? { tab: await info(tab) } : {}), ...(targetId ? { targetId } : {}) });
    indicated();
  })();
});

chrome.tabs.onRemoved.addListener(tabId => {
  void (async () => {
    await load();
    if (!shared.delete(tabId)) return;
    urls.delete(tabId);
    await saveShared();
    // Its last answers first (the share.changed below also takes it away on the server).
    await settled(tabId);
    if (attached.delete(tabId)) emit('cdp.detached', { tabId, reason: 'target_closed' });
    emit('share.changed', { tabs: await sharedTabs() });
  })();
});

chrome.tabs.onUpdated.addListener((tabId, change) => {
  if (change.url !== undefined && shared.has(tabId)) urls.set(tabId, change.url);
  if (change.url === undefined || !attached.has(tabId)) return;
  void (async () => {
    // A shared tab that went to a page we may not drive (chrome:, our own pages): stop driving it, keep it shared.
    if (debuggableUrl(change.url, await fileAccess()) && !change.url!.startsWith(chrome.runtime.getURL(''))) return;
    flagged.delete(tabId);
    if (!attached.delete(tabId)) return;
    await dbg.detach({ tabId }).catch(() => undefined);
    emit('cdp.detached', { tabId, reason: 'not_debuggable' });
  })();
});

// ---- our pages (popup, pairing page) ----------------------------------------------------------------------

async function status(): Promise<Status> {
  await load();
  const { pairing } = await stored();
  return {
    paired: Boolean(pairing),
    port: pairing?.port ?? DEFAULT_LINK_PORT,
    state: !pairing ? 'unpaired' : linked ? 'connected' : socket ? 'connecting' : 'disconnected',
    ...(lastError ? { lastError } : {}),
    shared: await sharedTabs(),
    attached: [...attached],
    bootId,
  };
}

async function onPageMessage(message: { type?: string; code?: string; port?: number; tabId?: number; req?: unknown }, sender: chrome.MessageSender): Promise<unknown> {
  // Only our own pages may steer the worker, and never from a tab the agent drives.
  if (sender.id !== chrome.runtime.id || !sender.url?.startsWith(chrome.runtime.getURL(''))) throw new Error('not our page');
  if (sender.tab?.id !== undefined && shared.has(sender.tab.id)) throw new Error('a shared tab cannot change what is shared');
  await load();
  switch (message.type) {
    case 'status':
      return await status();
    case 'consent.get': {
      const pending = consentFor((message as { req?: unknown }).req, sender);
      return { title: pending.title, detail: pending.detail };
    }
    case 'consent.answer': {
      const { req, decision, trusted } = message as { req?: unknown; decision?: string; trusted?: boolean };
      const pending = consentFor(req, sender);
      // A click from script (element.click()) is not the user's.
      if (trusted !== true) throw new Error('Only a click by the user counts.');
      if (!['once', 'always', 'deny', 'never'].includes(String(decision))) throw new Error('unknown answer');
      pending.resolve({ decision: String(decision) });
      return await status();
    }
    case 'pair': {
      if (!message.code || !decodeKey(message.code)) throw new Error('That is not a pairing code: run `tabwright pairing-key` and paste what it prints.');
      const port = Number(message.port) || DEFAULT_LINK_PORT;
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${message.port} is not a port number.`);
      await chrome.storage.local.set({ pairing: { code: message.code.replace(/[\s-]/g, '').toUpperCase(), port } });
      await chrome.alarms.create(REDIAL_ALARM, { periodInMinutes: 0.5 });
      // A dial in flight (the worker's start) may have read the storage before this pairing: let it finish, then
      // dial with this one; joining it would leave the link to the next alarm, up to 30 s away.
      await dialing?.catch(() => undefined);
      socket?.close(1000, 'pairing changed');
      socket = undefined;
      lastError = undefined;
      retryMs = 500;
      await dial();
      return await status();
    }
    case 'unpair':
      await chrome.storage.local.remove('pairing');
      await chrome.alarms.clear(REDIAL_ALARM);
      socket?.close(1000, 'unpaired');
      return await status();
    case 'share':
      if (typeof message.tabId !== 'number') throw new Error('no tab');
      {
        const tab = await chrome.tabs.get(message.tabId);
        if (!debuggableUrl(tab.url || tab.pendingUrl, await fileAccess()) || (tab.url ?? '').startsWith(chrome.runtime.getURL(''))) {
          throw new Error(`tabwright cannot drive ${tab.url}: only web pages can be shared.`);
        }
      }
      await share(message.tabId, true);
      void dial();
      return await status();
    case 'unshare':
      if (typeof message.tabId === 'number') await unshare(message.tabId, 'unshared');
      return await status();
    case 'shareAll': {
      const access = await fileAccess();
      for (const tab of await chrome.tabs.query({})) {
        if (tab.id !== undefined && !shared.has(tab.id) && debuggableUrl(tab.url || tab.pendingUrl, access) && !(tab.url ?? '').startsWith(chrome.runtime.getURL(''))) await share(tab.id, false);
      }
      emit('share.changed', { tabs: await sharedTabs() });
      void dial();
      return await status();
    }
    case 'stopAll':
      for (const tabId of [...shared]) await unshare(tabId, 'unshared');
      return await status();
    default:
      throw new Error(`unknown message ${String(message.type)}`);
  }
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  onPageMessage(message as never, sender).then(
    result => sendResponse({ ok: true, result }),
    (error: unknown) => sendResponse({ ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
  return true;
});

chrome.runtime.onUserScriptMessage?.addListener((message, sender, sendResponse) => {
  onUserScriptMessage(message as never, sender).then(sendResponse, () => sendResponse(undefined));
  return true;
});

chrome.alarms.onAlarm.addListener(alarm => {
  if (alarm.name === REDIAL_ALARM) void dial();
});
chrome.runtime.onStartup.addListener(() => void dial());
chrome.runtime.onInstalled.addListener(() => void dial());
void (async () => {
  const { pairing } = await stored();
  if (pairing) await chrome.alarms.create(REDIAL_ALARM, { periodInMinutes: 0.5 });
  await dial();
})();
