/**
 * The userscript-manager API the companion uses (granted in its header, userscript/header.txt): the subset that
 * Tampermonkey, Violentmonkey and ScriptCat share, plus GM_getTab / GM_saveTab and GM_addElement where a manager
 * has them (the companion checks with `typeof` first). OWN-BROWSER.md §5; docs/userscript-connection.md.
 */

interface GmResponse {
  status: number;
  responseText: string;
}

interface GmRequest {
  method: 'GET' | 'POST';
  url: string;
  data?: string;
  headers?: Record<string, string>;
  /** ms */
  timeout?: number;
  /** No cookies are sent or stored. */
  anonymous?: boolean;
  onload?(response: GmResponse): void;
  onerror?(response: unknown): void;
  ontimeout?(response: unknown): void;
  onabort?(response: unknown): void;
}

declare function GM_xmlhttpRequest(details: GmRequest): { abort(): void };
declare function GM_getValue<T>(key: string, fallback: T): T;
declare function GM_setValue(key: string, value: unknown): void;
declare function GM_registerMenuCommand(name: string, onClick: () => void): number | string;
declare function GM_unregisterMenuCommand(id: number | string): void;
/** Tampermonkey and ScriptCat: an object kept per browser tab while it lives. Absent in Violentmonkey. */
declare const GM_getTab: ((callback: (tab: Record<string, unknown>) => void) => void) | undefined;
declare const GM_saveTab: ((tab: Record<string, unknown>) => void) | undefined;
/** Tampermonkey, Violentmonkey, ScriptCat: creates an element, bypassing the page's CSP for scripts and styles. */
declare const GM_addElement: ((parentOrTag: Node | string, tagOrAttributes?: string | Record<string, unknown>, attributes?: Record<string, unknown>) => Element) | undefined;
