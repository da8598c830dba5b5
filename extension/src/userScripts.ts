/**
 * tabwright's userscripts through chrome.userScripts (docs/userscripts.md, "Through the extension"): what the server
 * sends with `us.sync` is registered as two document_start scripts for its match patterns, in every frame:
 *
 * - the engine (MAIN world): tabwright's userscript engine and the enabled scripts, as the CDP injector builds it;
 * - the messenger (USER_SCRIPT world, world `tabwright`, messaging on): carries the engine's messages, as DOM events
 *   named after a per-process secret (`event`), to the worker with chrome.runtime.sendMessage.
 *
 * Scope: Chrome runs registered scripts in every tab whose URL matches; the engine runs no script until it knows its
 * tab is shared. Two ways it learns that, both decided here, in the worker:
 * - at document start, synchronously, from the global `flag` that the worker puts into the documents of every
 *   shared tab it is attached to (Page.addScriptToEvaluateOnNewDocument over chrome.debugger, which runs before
 *   document_start scripts); the engine deletes it before the page's scripts run;
 * - else (a shared tab not attached yet: a popup's first document) by asking: the messenger's `gate` message is
 *   answered true only for a shared tab, so those scripts run a little later than document start.
 * Every other message is forwarded to the server only from a shared tab while the link is up; the rest get no
 * answer. When the link goes down everything is unregistered.
 */
/** The USER_SCRIPT world of the messenger. */
export const MESSENGER_WORLD = 'tabwright';
const ENGINE_ID = 'tabwright-engine';
const MESSENGER_ID = 'tabwright-messenger';

/** What the server registers (src/browser/connection.ts UserScriptsRegistration). */
export interface Registration { code: string; matches: string[]; event: string; flag: string }

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const api = (): any => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (chrome as any).userScripts;
  } catch {
    return undefined;
  }
};

/** Chrome's major version, from the user agent. */
export function chromeMajor(): number {
  return Number(/(?:Chrome|Chromium)\/(\d+)/.exec(navigator.userAgent)?.[1] ?? 0);
}

/**
 * Whether chrome.userScripts can be used now (Chrome's documented check: from 138 on, the API exists but its
 * methods throw while "Allow User Scripts" is off; before, the object is missing without Developer mode; Chromium
 * 156 leaves it undefined while the toggle is off).
 */
export async function availability(): Promise<{ available: boolean; reason?: string; chromeMajor: number }> {
  const major = chromeMajor();
  const off = major >= 138 ? 'allow-user-scripts-off' : 'developer-mode-off';
  const us = api();
  if (!us) return { available: false, reason: off, chromeMajor: major };
  try {
    await us.getScripts();
    return { available: true, chromeMajor: major };
  } catch {
    return { available: false, reason: off, chromeMajor: major };
  }
}

let current: Registration | undefined;

/** The registration in force (undefined: nothing registered). */
export function registration(): Registration | undefined {
  return current;
}

/** The messenger: the engine's `<event>-out` events to the worker, the answers back as `<event>-in`. */
function messengerCode(event: string): string {
  return `(() => {
  const out = ${JSON.stringify(`${event}-out`)}, back = ${JSON.stringify(`${event}-in`)};
  const doc = document, CE = CustomEvent, parse = JSON.parse, stringify = JSON.stringify;
  const reply = (id, r) => doc.dispatchEvent(new CE(back, { detail: stringify({ id, r }) }));
  doc.addEventListener(out, e => {
    let m;
    try { m = parse(String(e.detail)); } catch { return; }
    chrome.runtime.sendMessage({ tabwright: 1, msg: m.msg }).then(r => reply(m.id, r), () => reply(m.id, undefined));
  });
})();`;
}

/**
 * Registers `next` (or unregisters all when undefined). A registration with the same event name and matches is
 * updated in place (new code for the engine).
 * @throws Error when chrome.userScripts is not available or refuses the registration.
 */
export async function sync(next: Registration | undefined): Promise<void> {
  const us = api();
  if (!next) {
    current = undefined;
    if (us) await us.unregister().catch(() => undefined);
    return;
  }
  if (!us) throw new Error('chrome.userScripts is not available: turn on "Allow User Scripts" for tabwright');
  await us.configureWorld({ worldId: MESSENGER_WORLD, messaging: true });
  const common = { matches: next.matches, runAt: 'document_start', allFrames: true };
  const scripts = [
    // The messenger first: in a frame, scripts run in registration order, so it listens before the engine speaks.
    { id: MESSENGER_ID, ...common, world: 'USER_SCRIPT', worldId: MESSENGER_WORLD, js: [{ code: messengerCode(next.event) }] },
    { id: ENGINE_ID, ...common, world: 'MAIN', js: [{ code: next.code }] },
  ];
  const same = current && current.event === next.event && JSON.stringify(current.matches) === JSON.stringify(next.matches);
  const registered = new Set(((await us.getScripts()) as Array<{ id: string }>).map(s => s.id));
  if (same && registered.has(ENGINE_ID) && registered.has(MESSENGER_ID)) {
    await us.update([{ id: ENGINE_ID, js: [{ code: next.code }] }]);
  } else {
    await us.unregister();
    await us.register(scripts);
  }
  current = next;
}

/** The CDP source that marks a shared tab's new documents (the engine deletes the mark before page scripts run). */
export function flagSource(flag: string): string {
  return `Object.defineProperty(globalThis, ${JSON.stringify(flag)}, { value: true, configurable: true, enumerable: false });`;
}
