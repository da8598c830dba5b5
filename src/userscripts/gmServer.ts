/**
 * The server's half of the GM functions that reach past the page (docs/userscripts.md, "GM API"):
 * `GM_xmlhttpRequest` and `GM_download` (requests made with Node's fetch), `GM_openInTab` (a tab of the session) and
 * `GM_notification` (a console-context entry). ./injection.ts hands it the engine's `xhr`, `xhr-abort`, `dl`, `tab`,
 * `tab-close` and `note` messages (./gmPage.ts EngineMessage), already checked for the process's token.
 *
 * A request passes, for its URL and for every redirect's: http(s) only; the script's `@connect` (./connect.ts); the
 * server policy's host rules (docs/policy.md); then, for a host this script has not been allowed to reach, the consent
 * gate, once per script and host (src/consent/gate.ts; "always allow" is saved as for other tools). The response is
 * bounded in size (MAX_RESPONSE_BYTES, MAX_DOWNLOAD_BYTES) and time (MAX_REQUEST_MS). The browser's cookies for the URL
 * go with it unless the script asks `anonymous: true` (read from the browser context: `BrowserContext.cookies`);
 * cookies the response sets are not stored in the browser.
 */
import { originOf } from '../util/origin.js';
import { BodyError, readResponseBody } from '../util/httpBody.js';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { Tab } from '../session/tab.js';
import { claimName, safeFileName } from '../session/downloads.js';
import { browserChannel } from '../consent/browserChannel.js';
import { consentGate, type ConsentWaiting } from '../consent/gate.js';
import { checkNavigation, hostDenial, hostDeniedError } from '../consent/policy.js';
import { ToolError } from '../errors.js';
import { logger } from '../log.js';
import { connectEntryFor, connectHost, connectList } from './connect.js';
import type { DownloadAnswer, XhrAnswer, XhrRequest } from './gmPageNet.js';
import { tellEngine } from './engineHook.js';
import type { StoredScript } from './types.js';

const log = logger('userscripts');

/** The largest response body GM_xmlhttpRequest hands back: 10 MiB (it crosses to the page as base64 in one message). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** The largest file GM_download saves: 100 MiB. */
export const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024;
/** The longest a request may take once allowed (all redirects included), in ms: 60 s; a script's `timeout` may shorten it. */
export const MAX_REQUEST_MS = 60_000;
/** Redirects followed (each one checked like the first URL). */
const MAX_REDIRECTS = 5;
/** Request headers Node's fetch sets itself or refuses. */
const DROPPED_HEADERS = new Set(['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer']);

/** Where a message came from: the frame, its page, and the tab. */
export interface GmSender {
  frame: Frame;
  page: Page;
  tab: Tab;
}

/** A refusal before any network traffic; `word` is GM_download's error word. */
class Refused extends Error {
  constructor(message: string, readonly word: 'not_whitelisted' | 'not_permitted') {
    super(message);
  }
}


/** An error in words; fetch's "fetch failed" with its cause (`connect ECONNREFUSED 127.0.0.1:9`). */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error && cause.message ? `${error.message}: ${cause.message}` : error.message;
}

/** `Name: value` lines, as XMLHttpRequest.getAllResponseHeaders() gives them. */
function headerLines(headers: Headers): string {
  const lines: string[] = [];
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') lines.push(`${name}: ${value}`);
  });
  for (const cookie of headers.getSetCookie()) lines.push(`set-cookie: ${cookie}`);
  return lines.map(l => `${l}\r\n`).join('');
}

/** The body, at most `max` bytes. @throws Error when it is larger. */
async function readBounded(res: Response, max: number): Promise<Buffer> {
  try {
    return await readResponseBody(res, max);
  } catch (error) {
    throw error instanceof BodyError ? new Error(`the response is over tabwright's bound of ${max} bytes`) : error;
  }
}

export class GmServer {
  /** Requests in flight by the engine's request id (`xhr-abort` aborts them). */
  private readonly inflight = new Map<string, AbortController>();
  /** Consent questions being asked, by script and host: requests of one script to one host wait for one answer. */
  private readonly asking = new Map<string, Promise<void>>();
  /** Tabs scripts opened (GM_openInTab), by tab id: who opened them (only that script may close them). */
  private readonly opened = new Map<number, { scriptId: string; frame: Frame }>();

  constructor(private readonly token: string) {}

  /**
   * One GM_xmlhttpRequest. Never throws: every failure is an answer the page turns into onerror / ontimeout / onabort.
   */
  async xhr(from: GmSender, script: StoredScript, rid: string, req: XhrRequest): Promise<XhrAnswer> {
    const controller = new AbortController();
    this.inflight.set(rid, controller);
    try {
      const { res, finalUrl, body } = await this.fetch(from, script, 'GM_xmlhttpRequest', req, controller, MAX_RESPONSE_BYTES);
      return { ok: true, status: res.status, statusText: res.statusText, finalUrl, headers: headerLines(res.headers), body: body.toString('base64') };
    } catch (error) {
      if (controller.signal.aborted) {
        const timedOut = controller.signal.reason instanceof ToolError && controller.signal.reason.type === 'timeout';
        return { ok: false, kind: timedOut ? 'timeout' : 'abort', error: timedOut ? (controller.signal.reason as Error).message : 'aborted', finalUrl: req.url };
      }
      return { ok: false, kind: 'error', error: reason(error), finalUrl: req.url };
    } finally {
      this.inflight.delete(rid);
    }
  }

  /** `xhr-abort`: stops the request `rid` if it still runs. */
  abort(rid: string): void {
    this.inflight.get(rid)?.abort(new ToolError('cancelled', 'aborted', 'The script aborted it.'));
  }

  /**
   * One GM_download: the file (fetched under the same rules as GM_xmlhttpRequest, or the bytes a blob:/data: URL
   * held in the page) saved into the downloads folder of the tab's workspace, under a safe name that takes no
   * existing file's place; listed by list_downloads.
   */
  async download(from: GmSender, script: StoredScript, msg: { url: string; name: string; headers: Record<string, string>; body?: string }): Promise<DownloadAnswer> {
    const { tab } = from;
    const session = tab.session;
    const dir = tab.workspace ? join(tab.workspace, '.tabwright', 'downloads') : session.downloads.dir;
    const fallback = (() => {
      try {
        return decodeURIComponent(new URL(msg.url).pathname.split('/').pop() ?? '');
      } catch {
        return '';
      }
    })();
    const name = safeFileName((msg.name || fallback || 'download').slice(0, 255));
    const failed = (error: DownloadAnswer & { ok: false }) => {
      session.downloads.addSaved(tab.id, msg.url, name, { error: `GM_download by ${script.name}: ${error.details}` });
      return error;
    };
    if (session.config.policy.mode === 'hardened') return failed({ ok: false, error: 'not_permitted', details: 'refused by the server policy (--policy hardened: downloads are off)' });
    let bytes: Buffer;
    try {
      if (msg.body !== undefined) {
        bytes = Buffer.from(msg.body, 'base64');
        if (bytes.length > MAX_DOWNLOAD_BYTES) return failed({ ok: false, error: 'not_succeeded', details: `the file is over tabwright's bound of ${MAX_DOWNLOAD_BYTES} bytes` });
      } else {
        const controller = new AbortController();
        const { res, body } = await this.fetch(from, script, 'GM_download', { method: 'GET', url: msg.url, headers: msg.headers ?? {} }, controller, MAX_DOWNLOAD_BYTES);
        if (res.status >= 400) return failed({ ok: false, error: 'not_succeeded', details: `HTTP ${res.status} ${res.statusText} for ${msg.url}` });
        bytes = body;
      }
    } catch (error) {
      if (error instanceof Refused) return failed({ ok: false, error: error.word, details: error.message });
      return failed({ ok: false, error: 'not_succeeded', details: reason(error) });
    }
    try {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.tabwright-gm-download-${process.pid}-${randomBytes(6).toString('hex')}.part`);
      writeFileSync(tmp, bytes, { mode: 0o644 });
      const path = claimName(dir, name, tmp);
      const record = session.downloads.addSaved(tab.id, msg.url, name, { path, size: bytes.length });
      return { ok: true, name: record.name };
    } catch (error) {
      return failed({ ok: false, error: 'not_succeeded', details: error instanceof Error ? error.message : String(error) });
    }
  }

  /**
   * GM_openInTab: a new tab of the session (in the background when asked), loading `url` (http(s) only, under the
   * server policy). Its opener is the script's tab.
   * @returns `{tid}` (the new tab's tabId) or `{error}`.
   */
  async openTab(from: GmSender, script: StoredScript, url: string, background: boolean): Promise<{ tid: number } | { error: string }> {
    const session = from.tab.session;
    try {
      if (!/^https?:$/.test(new URL(url).protocol)) return { error: `only http(s) URLs open in a tab, not ${url.split(':')[0]}:` };
      checkNavigation(session.config.policy, url);
    } catch (error) {
      return { error: error instanceof Error ? error.message : 'not a URL' };
    }
    const tab = await session.openTab(undefined, background);
    tab.openerTabId = from.tab.id;
    this.opened.set(tab.id, { scriptId: script.id, frame: from.frame });
    tab.page.once('close', () => {
      const opener = this.opened.get(tab.id);
      this.opened.delete(tab.id);
      if (opener) tellEngine(opener.frame, this.token, { t: 'tab-closed', tid: tab.id }).catch(() => undefined);
    });
    tab.page.goto(url).catch(error => log.debug(`GM_openInTab ${url}:`, error));
    return { tid: tab.id };
  }

  /** A GM_openInTab handle's close(): only the tab that script opened. */
  async closeTab(from: GmSender, script: StoredScript, tid: number): Promise<void> {
    if (this.opened.get(tid)?.scriptId !== script.id) return;
    await from.tab.session.closeTab(tid).catch(() => undefined);
  }

  /** GM_notification: an `info` entry in the tab's console context, with the script's name (no desktop to show it on). */
  notify(tab: Tab, script: StoredScript, text: string, title: string, image?: string): void {
    this.notice(tab, script, `Notification: ${title ? `${title}: ` : ''}${text}${image ? ` (image ${image})` : ''}`);
  }

  /** An `info` entry `[<script name>] <text>` in the tab's console context, tagged with the script. */
  private notice(tab: Tab, script: StoredScript, text: string): void {
    tab.console.push({ level: 'info', kind: 'console', text: `[${script.name}] ${text}`, script: { id: script.id, name: script.name }, timestamp: Date.now(), revision: tab.revision });
  }

  /**
   * Checks and makes one request, following redirects by hand so that each URL is checked.
   * @throws Refused (scheme, @connect, policy, consent), or fetch's and the bounds' errors.
   */
  private async fetch(from: GmSender, script: StoredScript, api: string, req: XhrRequest, controller: AbortController, maxBytes: number): Promise<{ res: Response; finalUrl: string; body: Buffer }> {
    const signal = controller.signal;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (!DROPPED_HEADERS.has(name.toLowerCase())) headers.set(name, String(value));
    }
    let scriptCookie: string | null | undefined = headers.get('cookie');
    let url = req.url;
    let method = req.method || 'GET';
    let body: Buffer | undefined = req.body !== undefined ? Buffer.from(req.body, 'base64') : undefined;
    if (body && body.length > MAX_RESPONSE_BYTES) throw new Error(`the request body is over tabwright's bound of ${MAX_RESPONSE_BYTES} bytes`);
    let timer: NodeJS.Timeout | undefined;
    try {
      for (let hop = 0; ; hop++) {
        await this.allow(from, script, api, method, url);
        if (signal.aborted) throw signal.reason;
        if (!timer) {
          // The bound starts once the first URL is allowed: the human's time to answer is not the request's.
          const ms = Math.min(req.timeout ?? MAX_REQUEST_MS, MAX_REQUEST_MS);
          timer = setTimeout(() => controller.abort(new ToolError('timeout', `no response within ${ms} ms`, 'Try again later.')), ms);
        }
        if (!req.anonymous) {
          const cookies = await from.page.context().cookies(url).catch(() => []);
          const jar = cookies.map(c => `${c.name}=${c.value}`).join('; ');
          const all = [jar, scriptCookie].filter(Boolean).join('; ');
          if (all) headers.set('cookie', all);
          else headers.delete('cookie');
        }
        const res = await fetch(url, { method, headers, body: body && method !== 'GET' && method !== 'HEAD' ? new Uint8Array(body) : undefined, redirect: 'manual', signal });
        const location = res.headers.get('location');
        if (res.status >= 300 && res.status < 400 && location && req.redirect !== 'manual') {
          await res.body?.cancel().catch(() => undefined);
          if (req.redirect === 'error') throw new Error(`${url} redirects to ${location} and the request asked for redirect: "error"`);
          if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${req.url}`);
          const next = new URL(location, url).href;
          // Credentials the script wrote for one origin do not follow a redirect to another (Fetch, "HTTP-redirect
          // fetch": Authorization is removed on a cross-origin redirect); the browser's cookies are read per URL.
          if (originOf(next) !== originOf(url)) {
            headers.delete('authorization');
            headers.delete('cookie');
            scriptCookie = undefined;
          }
          url = next;
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            headers.delete('content-type');
          }
          continue;
        }
        return { res, finalUrl: url, body: method === 'HEAD' ? Buffer.alloc(0) : await readBounded(res, maxBytes) };
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Whether `script` may reach `url`: http(s), `@connect`, the policy's host rules, then the consent gate for this
   * script and host (one question at a time per script and host).
   * @throws Refused with the reason.
   */
  private async allow(from: GmSender, script: StoredScript, api: string, method: string, url: string): Promise<void> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new Refused(`${api}: "${url}" is not a URL`, 'not_permitted');
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Refused(`${api}: only http(s) URLs, not ${target.protocol}`, 'not_permitted');
    const host = connectHost(target.hostname);
    const pageHost = (() => {
      try {
        return connectHost(new URL(from.frame.url()).hostname);
      } catch {
        return '';
      }
    })();
    const list = connectList(script.metadata);
    if (!connectEntryFor(list, host, pageHost)) {
      throw new Refused(`${api}: ${host} is not in the script's @connect list (${list.length ? list.join(', ') : 'none'}); add "// @connect ${host}" to its header.`, 'not_whitelisted');
    }
    const config = from.tab.session.config;
    const denial = hostDenial(config.policy, url);
    if (denial) throw new Refused(`${api}: ${hostDeniedError(denial, config.policy).message}`, 'not_permitted');
    const key = `${script.id}\n${host}`;
    let asking = this.asking.get(key);
    if (!asking) {
      // No tool call waits on this question, so no progress goes out: the tab's console context says where it is asked.
      const waiting = (w: ConsentWaiting | undefined) => {
        if (!w) return;
        const where = `${(w.askedIn ?? []).join(', ') || 'nowhere'}${w.dashboardUrl ? `; answer in the tabwright dashboard: ${w.dashboardUrl}` : ''}`;
        this.notice(from.tab, script, `${api} to ${host} waits for the user's approval (asked in: ${where}).`);
      };
      asking = consentGate({ config, signal: new AbortController().signal, progress: async () => undefined, client: {}, waiting }, {
        origin: originOf(from.frame.url()),
        name: `@connect ${host}`,
        source: 'userscript',
        scriptId: script.id,
        tabId: from.tab.id,
        description: `Userscript "${script.name}" wants tabwright's server to make requests to ${host} (${api}): no CORS, and the browser's cookies for ${host} go with them.`,
        arguments: { method, url },
        browserPrompt: browserChannel(from.tab.session.connection, from.page),
      }).then(() => undefined);
      this.asking.set(key, asking);
      void asking.then(() => this.asking.delete(key), () => this.asking.delete(key));
    }
    try {
      await asking;
    } catch (error) {
      const type = error instanceof ToolError ? error.type : 'consent_unavailable';
      throw new Refused(`${api}: ${host} needs the user's approval for "${script.name}" and did not get it (${type}): ${error instanceof Error ? error.message : String(error)}`, 'not_permitted');
    }
  }
}
