/**
 * The in-page half of the GM functions the server carries out (docs/userscripts.md, "GM API"):
 * `GM_xmlhttpRequest`, `GM_download`, `GM_openInTab` and `GM_notification`. Bundled with the engine (./gmPage.ts);
 * no Node imports. Each call becomes one engine message (`xhr`, `dl`, `tab`, `note`); the server
 * (./gmServer.ts) checks `@connect`, the server policy and the consent gate, makes the request with Node's fetch
 * and answers; this side turns the answer into Tampermonkey's response object and callbacks.
 */
import type { EngineMessage } from './gmPage.js';

/** A request as the engine sends it (`xhr`, and `dl` for an http(s) URL). Bodies travel as base64. */
export interface XhrRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body's bytes, base64. */
  body?: string;
  /** Milliseconds; the server bounds it (MAX_REQUEST_MS). */
  timeout?: number;
  /** Tampermonkey's `anonymous`: send no browser cookies. */
  anonymous?: boolean;
  /** Tampermonkey's `redirect`: `follow` (default), `error` or `manual`. */
  redirect?: 'follow' | 'error' | 'manual';
}

/** The server's answer to `xhr`. `kind` says which callback runs when `ok` is false. */
export type XhrAnswer =
  | { ok: true; status: number; statusText: string; finalUrl: string; headers: string; body: string }
  | { ok: false; kind: 'error' | 'timeout' | 'abort'; error: string; finalUrl?: string };

/** The server's answer to `dl` (`error` is Tampermonkey's error word). */
export type DownloadAnswer = { ok: true; name: string } | { ok: false; error: 'not_whitelisted' | 'not_permitted' | 'not_succeeded'; details: string };

/** What the network API needs from the engine. */
export interface NetDeps {
  id: string;
  docId: string;
  send(msg: EngineMessage): Promise<unknown>;
  /** Reports an error a script's callback threw (to the console context, tagged with the script). */
  report(e: unknown): void;
  /** Handles of the tabs this document's scripts opened, by tabwright tab id (`tab-closed` marks them). */
  tabs: Map<number, { closed: boolean; onclose?: unknown }>;
}

/** Built-ins taken when the engine starts, before page scripts can replace them. */
const Resp = globalThis.Response;
const Blob_ = globalThis.Blob;
const Parser = globalThis.DOMParser;
const Decoder = globalThis.TextDecoder;
const b64decode = globalThis.atob;
const b64encode = globalThis.btoa;
const fromCharCode = String.fromCharCode;
const fetchFn = globalThis.fetch;
const stringify = JSON.stringify;
const parseJson = JSON.parse;
const URL_ = globalThis.URL;
const userAgent = globalThis.navigator?.userAgent ?? '';

function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += fromCharCode(...bytes.subarray(i, i + 0x8000));
  return b64encode(bin);
}

function fromBase64(text: string): Uint8Array {
  const bin = b64decode(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** A request body as bytes (base64) and the content type it implies: FormData, Blob, URLSearchParams and buffers as `Response` encodes them; a plain object or array as JSON. */
async function encodeBody(data: unknown): Promise<{ body?: string; type?: string | null }> {
  if (data === undefined || data === null) return {};
  const plain = typeof data === 'object' && (Array.isArray(data) || Object.getPrototypeOf(data) === Object.prototype);
  const r = new Resp(plain ? stringify(data) : (data as BodyInit));
  return { body: toBase64(new Uint8Array(await r.arrayBuffer())), type: plain ? 'application/json' : r.headers.get('content-type') };
}

/** The absolute form of `url` against the document's address. @throws TypeError for a string that is no URL. */
function absolute(url: unknown): string {
  return new URL_(String(url), location.href).href;
}

function headerOf(headers: string, name: string): string {
  const m = new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers);
  return m ? m[1]!.trim() : '';
}

/** The network API of one script. */
export function networkApi(deps: NetDeps) {
  let seq = 0;
  const call = (fn: unknown, self: unknown, ...args: unknown[]) => {
    if (typeof fn !== 'function') return;
    try {
      const result = (fn as (...a: unknown[]) => unknown).apply(self, args) as { then?: unknown } | undefined;
      if (result && typeof result.then === 'function') (result as Promise<unknown>).then(undefined, deps.report);
    } catch (e) {
      deps.report(e);
    }
  };

  /** GM_xmlhttpRequest(details): callbacks as Tampermonkey calls them; returns `{abort()}`. */
  function xmlhttpRequest(details: Record<string, unknown>): { abort(): void } {
    const d = details ?? {};
    const rid = `${deps.docId}:${deps.id}:${++seq}`;
    let done = false;
    let finalUrl = '';
    const responseType = String(d.responseType ?? '');
    const base = () => ({ finalUrl, readyState: 4, status: 0, statusText: '', responseHeaders: '', response: undefined as unknown, responseText: '', responseXML: null, context: d.context });
    const finish = (name: string, response: Record<string, unknown>) => {
      if (done) return;
      done = true;
      call(d.onreadystatechange, d, response);
      call(d[name], d, response);
      call(d.onloadend, d, response);
    };
    const fail = (kind: 'error' | 'timeout' | 'abort', error: string) => finish(`on${kind}`, { ...base(), error });
    (async () => {
      let url: string;
      try {
        url = absolute(d.url);
      } catch {
        throw new Error(`GM_xmlhttpRequest: "${String(d.url)}" is not a URL`);
      }
      finalUrl = url;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries((d.headers ?? {}) as Record<string, unknown>)) headers[k] = String(v);
      // The browser's User-Agent, as a request the browser made would carry (Node's fetch would say "node").
      if (!Object.keys(headers).some(k => k.toLowerCase() === 'user-agent')) headers['user-agent'] = userAgent;
      const { body, type } = await encodeBody(d.data);
      if (type && !Object.keys(headers).some(k => k.toLowerCase() === 'content-type')) headers['content-type'] = type;
      call(d.onloadstart, d, { ...base(), readyState: 1 });
      const request: EngineMessage = {
        t: 'xhr', id: deps.id, rid,
        req: {
          method: String(d.method ?? 'GET').toUpperCase(), url, headers, body,
          timeout: typeof d.timeout === 'number' && d.timeout > 0 ? d.timeout : undefined,
          anonymous: d.anonymous === true,
          redirect: d.redirect === 'error' || d.redirect === 'manual' ? d.redirect : 'follow',
        },
      };
      if (done) return; // aborted while the body was read: nothing goes out
      const answer = (await deps.send(request)) as XhrAnswer | undefined;
      if (done) return;
      if (!answer) return fail('error', 'tabwright did not answer the request');
      if (!answer.ok) {
        if (answer.finalUrl) finalUrl = answer.finalUrl;
        return fail(answer.kind, answer.error);
      }
      finalUrl = answer.finalUrl;
      const bytes = fromBase64(answer.body);
      const mime = String(d.overrideMimeType ?? '') || headerOf(answer.headers, 'content-type');
      let text: string | undefined;
      const textOf = () => (text ??= new Decoder().decode(bytes));
      let response: unknown;
      if (responseType === 'json') {
        try {
          response = parseJson(textOf());
        } catch {
          response = undefined;
        }
      } else if (responseType === 'arraybuffer') response = bytes.buffer;
      else if (responseType === 'blob') response = new Blob_([bytes as BlobPart], { type: mime });
      else if (responseType === 'document') response = new Parser().parseFromString(textOf(), /xml/.test(mime) ? 'text/xml' : 'text/html');
      else response = textOf();
      const result: Record<string, unknown> = { ...base(), status: answer.status, statusText: answer.statusText, responseHeaders: answer.headers, response };
      Object.defineProperty(result, 'responseText', { get: textOf, enumerable: true });
      Object.defineProperty(result, 'responseXML', {
        get: () => (/(xml|html)/.test(mime) ? new Parser().parseFromString(textOf(), /html/.test(mime) ? 'text/html' : 'text/xml') : null),
        enumerable: true,
      });
      call(d.onprogress, d, { ...result, lengthComputable: true, loaded: bytes.length, total: bytes.length });
      finish('onload', result);
    })().catch(e => fail('error', e instanceof Error ? e.message : String(e)));
    return {
      abort() {
        if (done) return;
        void deps.send({ t: 'xhr-abort', rid });
        fail('abort', 'aborted');
      },
    };
  }

  /** GM.xmlHttpRequest(details): a promise of the response (rejected with it on error, timeout or abort), with `abort()`. */
  function xmlHttpRequestPromise(details: Record<string, unknown>): Promise<unknown> & { abort(): void } {
    const d = details ?? {};
    let handle: { abort(): void } | undefined;
    const promise = new Promise((resolve, reject) => {
      const settle = (cb: unknown, how: (r: unknown) => void) => (r: unknown) => {
        call(cb, d, r);
        how(r);
      };
      handle = xmlhttpRequest({ ...d, onload: settle(d.onload, resolve), onerror: settle(d.onerror, reject), ontimeout: settle(d.ontimeout, reject), onabort: settle(d.onabort, reject) });
    }) as Promise<unknown> & { abort(): void };
    promise.abort = () => handle?.abort();
    return promise;
  }

  /**
   * GM_download(url, name) / GM_download(details): the server saves the file into the downloads folder. A `blob:` or
   * `data:` URL (content the script made) is read here and sent along; an http(s) URL is fetched by the server.
   */
  function download(urlOrDetails: unknown, name?: unknown): { abort(): void } {
    const d = (typeof urlOrDetails === 'object' && urlOrDetails !== null ? urlOrDetails : { url: urlOrDetails, name }) as Record<string, unknown>;
    let done = false;
    const end = (cb: unknown, arg: unknown) => {
      if (done) return;
      done = true;
      call(cb, d, arg);
    };
    (async () => {
      const url = absolute(d.url);
      let body: string | undefined;
      if (/^(blob|data):/i.test(url)) body = toBase64(new Uint8Array(await (await fetchFn(url)).arrayBuffer()));
      else if (!/^https?:/i.test(url)) throw new Error(`GM_download: only http(s), blob: and data: URLs are downloaded, not ${url.split(':')[0]}:`);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries((d.headers ?? {}) as Record<string, unknown>)) headers[k] = String(v);
      const answer = (await deps.send({ t: 'dl', id: deps.id, url, name: String(d.name ?? ''), headers, body })) as DownloadAnswer | undefined;
      if (answer?.ok) end(d.onload, { name: answer.name });
      else end(d.onerror, answer ? { error: answer.error, details: answer.details } : { error: 'not_succeeded', details: 'tabwright did not answer' });
    })().catch(e => end(d.onerror, { error: 'not_succeeded', details: e instanceof Error ? e.message : String(e) }));
    return { abort: () => end(d.onerror, { error: 'not_succeeded', details: 'aborted' }) };
  }

  /** GM.download: a promise that resolves on load and rejects with the error object. */
  function downloadPromise(urlOrDetails: unknown, name?: unknown): Promise<unknown> {
    const d = (typeof urlOrDetails === 'object' && urlOrDetails !== null ? urlOrDetails : { url: urlOrDetails, name }) as Record<string, unknown>;
    return new Promise((resolve, reject) => void download({ ...d, onload: (r: unknown) => { call(d.onload, d, r); resolve(r); }, onerror: (r: unknown) => { call(d.onerror, d, r); reject(r); } }));
  }

  /**
   * GM_openInTab(url, {active, insert, setParent} | loadInBackground): tabwright opens a tab of the same browser
   * context. Returns `{close(), closed, onclose}`; `closed` turns true when the tab closes, and `onclose` runs then.
   */
  function openInTab(url: unknown, options?: unknown): { close(): void; closed: boolean; onclose?: unknown } {
    const o = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
    const background = typeof options === 'boolean' ? options : o.active !== undefined ? o.active !== true : o.loadInBackground === true;
    let tid: number | undefined;
    let closeAsked = false;
    const handle: { close(): void; closed: boolean; onclose?: unknown } = {
      closed: false,
      close() {
        if (tid !== undefined) void deps.send({ t: 'tab-close', id: deps.id, tid });
        else closeAsked = true;
      },
    };
    const target = absolute(url);
    void deps.send({ t: 'tab', id: deps.id, url: target, background }).then(answer => {
      const a = answer as { tid?: number; error?: string } | undefined;
      if (typeof a?.tid !== 'number') {
        handle.closed = true;
        deps.report(new Error(`GM_openInTab(${target}): ${a?.error ?? 'tabwright did not open the tab'}`));
        return;
      }
      tid = a.tid;
      deps.tabs.set(tid, handle);
      if (closeAsked) handle.close();
    });
    return handle;
  }

  /**
   * GM_notification(text, title, image, onclick) / GM_notification(details[, ondone]): no desktop to show it on; it
   * goes to the tab's console context. `onclick` never runs (nothing to click); `ondone` runs once it is recorded.
   */
  function notification(textOrDetails: unknown, titleOrDone?: unknown, image?: unknown, _onclick?: unknown): Promise<void> {
    const d = (typeof textOrDetails === 'object' && textOrDetails !== null ? textOrDetails : { text: textOrDetails, title: titleOrDone, image }) as Record<string, unknown>;
    const ondone = typeof titleOrDone === 'function' ? titleOrDone : d.ondone;
    const text = String(d.text ?? '');
    const title = d.title === undefined ? '' : String(d.title);
    const img = typeof d.image === 'string' && !d.image.startsWith('data:') ? d.image : undefined;
    return deps.send({ t: 'note', id: deps.id, text, title, image: img }).then(() => call(ondone, d));
  }

  return { xmlhttpRequest, xmlHttpRequestPromise, download, downloadPromise, openInTab, notification };
}
