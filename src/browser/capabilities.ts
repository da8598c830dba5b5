/**
 * What a connection kind can do (docs/connections.md, "The seam"). A tool lists the capabilities it needs; a connection
 * that lacks one makes the call fail with `capability_unavailable` naming
 * the kinds that have it.
 */
import { ToolError } from '../errors.js';

export type Capability = 'trustedInput' | 'screenshot' | 'snapshot' | 'evaluate' | 'webmcp' | 'userscriptManager' | 'console' | 'network' | 'shareTabs'
  | 'storage' | 'routing' | 'emulation' | 'recording';

/**
 * `cdp`: a browser attached over the DevTools protocol; `playwright-server`: a Playwright server's browser;
 * `own-chrome`: the user's Chrome through its approval prompt; `extension`: the user's browser through the companion extension.
 */
export type ConnectionKind = 'launch' | 'cdp' | 'playwright-server' | 'own-chrome' | 'extension' | 'userscript';

/**
 * Whether a capability works on a connection kind: `available`; `experimental` (works, on a draft or unstable
 * footing the reason names); `unavailable` (the reason says why). A `note` on an available one names a limit.
 */
export type CapabilityStatus = 'available' | 'unavailable' | 'experimental';

/** One capability's status on one connection kind, as the manifest reports it. */
export interface CapabilityState {
  status: CapabilityStatus;
  /** Why: for `unavailable` and `experimental` (always), and a limit of an `available` one (sometimes). */
  reason?: string;
}

/**
 * What the manifest reports besides the capabilities tools declare in `needs`: features that differ by connection
 * kind without a tool needing them as a whole (downloads, viewport emulation, stopping a stuck script).
 */
export type ReportedCapability = Capability | 'downloads' | 'viewportEmulation' | 'stopStuckScript';

const ALL_KINDS: readonly ConnectionKind[] = ['launch', 'cdp', 'playwright-server', 'own-chrome', 'extension', 'userscript'];

/** A state for every kind: `available` unless `except` says otherwise. */
function states(except: Partial<Record<ConnectionKind, CapabilityState>> = {}): Record<ConnectionKind, CapabilityState> {
  return Object.fromEntries(ALL_KINDS.map(kind => [kind, except[kind] ?? { status: 'available' }])) as Record<ConnectionKind, CapabilityState>;
}

const off = (reason: string): CapabilityState => ({ status: 'unavailable', reason });

/** The userscript kind (the companion userscript in opted-in tabs, docs/userscript-connection.md): why it lacks what it lacks. */
const USERSCRIPT = 'a userscript manager runs inside the page';

/**
 * The one declaration of what each connection kind can do (docs/connections.md, "The seam"; the reasons are
 * docs/attach.md "What each connection cannot do" and docs/own-browser.md "What differs"): each capability, in
 * the order get_bridge_status lists them, with its state per kind. CAPABILITIES_BY_KIND (what `needs` is checked
 * against) and the capability manifest (get_bridge_status, the MCP initialize `_meta`) are both read from it.
 */
export const CAPABILITY_DECLARATIONS: Readonly<Record<ReportedCapability, Record<ConnectionKind, CapabilityState>>> = {
  trustedInput: states({ userscript: off(`${USERSCRIPT}: the events it dispatches are untrusted (isTrusted false)`) }),
  screenshot: states({ userscript: off(`${USERSCRIPT} and cannot capture the page's pixels`) }),
  snapshot: states({ userscript: { status: 'available', reason: `get_page_context from the same in-page walker; the top document only (cross-origin frames unread), its refs for paging` } }),
  evaluate: states(),
  webmcp: states(Object.fromEntries(ALL_KINDS.map(kind => [kind, kind === 'userscript'
    // docs/userscript-connection.md, "WebMCP tools": through the page's own document.modelContext, from inside the page.
    ? {
      status: 'experimental',
      reason: `a draft web API, reached from inside the page: native where the browser has its WebMCP feature on, else tabwright's polyfill, which the companion installs at document start in an allowed tab (a tab allowed after it loaded lists only the tools registered since: reload it); the top document only`,
    }
    : {
      status: 'experimental',
      reason: kind === 'launch'
        ? `a draft web API: native in the browser tabwright launches (its WebMCP feature, unless --webmcp polyfill), else tabwright's polyfill`
        : `a draft web API: native only where the browser has its WebMCP feature on (tabwright cannot switch it on here), else tabwright's polyfill`,
    }]))),
  // A userscript manager's own API (Tampermonkey's, Violentmonkey's): only the userscript kind runs inside one.
  // tabwright's own userscripts (the scripts tools, injection) run on every kind (docs/userscripts.md).
  userscriptManager: states(Object.fromEntries(ALL_KINDS.filter(k => k !== 'userscript').map(kind => [kind, off(`the API of a userscript manager such as Tampermonkey, reached only by the userscript connection kind; tabwright's own userscripts (the scripts tools) do work here`)]))),
  console: states({ userscript: off(`${USERSCRIPT} and sees only what it wraps of the console`) }),
  network: states({ userscript: off(`${USERSCRIPT} and cannot see the browser's network traffic`) }),
  shareTabs: states({
    launch: off('tabwright opened every tab of the browser it launched: there is nothing to share'),
    cdp: off('every tab of the attached context is already in reach'),
    'playwright-server': off(`the Playwright server's browser has only tabwright's tabs`),
    extension: off(`the user shares tabs from the extension's popup, not through tabwright`),
    userscript: off(`${USERSCRIPT}: its tabs are where the user installed it`),
  }),
  // The storage tool set: cookies, web storage and saved storage states (docs/storage.md).
  storage: states({
    'own-chrome': { status: 'available', reason: `the user's own profile, only the origins of the tabs in reach (shared or opened by tabwright): cookies of other sites are neither read nor written; clear_cookies needs a filter` },
    extension: { status: 'available', reason: `only the shared tabs' origins: cookies through a shared tab (the extension refuses other domains), localStorage and IndexedDB in the shared tab that shows the origin; clear_cookies needs a filter and expires the matching cookies one by one` },
    userscript: off(`${USERSCRIPT} and cannot read the browser's cookie jar`),
  }),
  // The network tool set: routes (mocked, aborted, changed requests) and HAR replay (docs/network.md).
  // On the user's own browser a route reaches the tabs tabwright drives, over each page's Fetch domain (through
  // the relay, or chrome.debugger's), never the user's other tabs.
  routing: states({
    'own-chrome': { status: 'available', reason: 'the tabs tabwright drives (those it opened and those the user shared), not the user\'s other tabs' },
    extension: { status: 'available', reason: 'the tabs tabwright drives (those it opened and those the user shared), through chrome.debugger\'s Fetch domain; not the user\'s other tabs' },
    userscript: off(`${USERSCRIPT} and cannot intercept the browser's requests`),
  }),
  // The emulation tool set: device metrics, user agent, locale, time zone, geolocation, media, offline (docs/emulation.md).
  // On the user's own browser it applies to the tab inside their window (docs/emulation.md, "Connection kinds").
  emulation: states({
    'own-chrome': { status: 'available', reason: `per tab, inside the user's window (which keeps its size); reset: true gives the tab back the browser's own settings` },
    extension: { status: 'available', reason: `per tab, inside the user's window (which keeps its size); the geolocation permission is the user's to give (chrome.debugger has no Browser.grantPermissions)` },
    userscript: off(`${USERSCRIPT} and cannot emulate a device`),
  }),
  // The recording tool set: a WebM of a tab from the DevTools protocol's screencast (docs/recording.md).
  recording: states({ userscript: off(`${USERSCRIPT} and cannot capture the page's pixels`) }),
  downloads: states({
    cdp: { status: 'available', reason: 'the browser writes the file on its own machine: this works only when it runs on the same machine as tabwright (a Playwright server streams it)' },
    'own-chrome': off(`downloads go to the user's download folder: tabwright leaves their settings alone, so list_downloads does not see them`),
    extension: off(`downloads go to the browser's download folder: chrome.debugger has no Browser.setDownloadBehavior, so list_downloads does not see them`),
    userscript: off(`${USERSCRIPT} and cannot see downloads`),
  }),
  viewportEmulation: states({
    cdp: { status: 'available', reason: `in the browser's default context tabwright leaves the window size as it is; contexts of its own (--new-context) get --viewport` },
    'own-chrome': off(`no default viewport: tabwright attaches without emulation (noDefaults), so tabs lay out in the user's window; resize_viewport and emulate still set one tab's viewport on request`),
    extension: off(`no default viewport: tabwright attaches without emulation (noDefaults), so tabs lay out in the user's window; resize_viewport and emulate still set one tab's viewport on request`),
    userscript: off(`${USERSCRIPT} and cannot emulate a viewport`),
  }),
  stopStuckScript: states({
    extension: off('Chrome answers an extension\'s Runtime.terminateExecution "not allowed for untrusted clients": a page in an endless loop stays stuck until it leaves the page'),
    userscript: off(`${USERSCRIPT} and runs on its thread`),
  }),
};

/** The capabilities tools declare in `needs` (the others are reported only). */
const NEEDED: readonly Capability[] = ['trustedInput', 'screenshot', 'snapshot', 'evaluate', 'webmcp', 'userscriptManager', 'console', 'network', 'shareTabs', 'storage', 'routing', 'emulation', 'recording'];

/** Which connection kinds offer which capability: those not `unavailable` there. */
export const CAPABILITIES_BY_KIND: Record<ConnectionKind, readonly Capability[]> = Object.fromEntries(
  ALL_KINDS.map(kind => [kind, NEEDED.filter(c => CAPABILITY_DECLARATIONS[c][kind].status !== 'unavailable')]),
) as unknown as Record<ConnectionKind, readonly Capability[]>;

/** The capability manifest of one connection kind: every capability with its state there, in declaration order. */
export interface CapabilityManifest {
  connection: ConnectionKind;
  capabilities: Record<ReportedCapability, CapabilityState>;
}

/** The manifest of `kind` (get_bridge_status `capabilityManifest`, the MCP initialize `_meta`). */
export function capabilityManifest(kind: ConnectionKind): CapabilityManifest {
  const capabilities = Object.fromEntries(
    (Object.keys(CAPABILITY_DECLARATIONS) as ReportedCapability[]).map(name => [name, { ...CAPABILITY_DECLARATIONS[name][kind] }]),
  ) as Record<ReportedCapability, CapabilityState>;
  return { connection: kind, capabilities };
}

/**
 * One line for the model: the capabilities that are not plainly available on `manifest`'s kind, with their reasons
 * (`Unavailable here: shareTabs (…); downloads (…). Experimental: webmcp (…).`); undefined when everything is.
 */
export function manifestLine(manifest: CapabilityManifest): string | undefined {
  const entries = Object.entries(manifest.capabilities) as Array<[ReportedCapability, CapabilityState]>;
  const list = (status: CapabilityStatus) => entries.filter(([, s]) => s.status === status).map(([name, s]) => `${name} (${s.reason})`).join('; ');
  const parts = [list('unavailable') && `Unavailable here: ${list('unavailable')}.`, list('experimental') && `Experimental: ${list('experimental')}.`].filter(Boolean);
  return parts.length ? parts.join(' ') : undefined;
}

/** The server flag that selects each kind. */
const KIND_FLAG: Partial<Record<ConnectionKind, string>> = {
  launch: '--connection launch',
  cdp: '--cdp-endpoint URL',
  'playwright-server': '--ws-endpoint URL',
  'own-chrome': '--own-chrome',
  extension: '--connection extension',
  userscript: '--connection userscript',
};

/**
 * @throws ToolError capability_unavailable when `have` lacks one of `needs`; the hint names the server flags of the
 *   kinds that have it (for a daemon: stop it, start it with one).
 */
export function requireCapabilities(needs: readonly Capability[], kind: ConnectionKind, have: ReadonlySet<Capability>): void {
  for (const need of needs) {
    if (have.has(need)) continue;
    const flags = (Object.keys(CAPABILITIES_BY_KIND) as ConnectionKind[])
      .filter(k => CAPABILITIES_BY_KIND[k].includes(need))
      .flatMap(k => KIND_FLAG[k] ?? []);
    throw new ToolError(
      'capability_unavailable',
      `The ${kind} connection cannot do this: it lacks the "${need}" capability.`,
      flags.length
        ? `Start the server with ${flags.join(' or ')} (a daemon: \`tabwright daemon stop\`, then \`tabwright daemon start ${flags[0]}\`).`
        : 'No connection kind of this version has it.',
    );
  }
}
