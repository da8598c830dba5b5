// The part of the chrome.* extension API the extension uses, typed loosely (no @types/chrome in this repo).
/* eslint-disable @typescript-eslint/no-explicit-any */
declare namespace chrome {
  interface Tab { id?: number; url?: string; pendingUrl?: string; title?: string; windowId: number; openerTabId?: number; groupId: number; active: boolean }
  interface MessageSender { id?: string; url?: string; tab?: Tab; origin?: string; frameId?: number; documentId?: string }
  interface Debuggee { tabId?: number; sessionId?: string }
  interface Event<T extends (...args: any[]) => any> { addListener(listener: T): void; removeListener(listener: T): void }
  const runtime: {
    id: string;
    lastError?: { message: string };
    getManifest(): { version: string };
    getURL(path: string): string;
    sendMessage(message: unknown): Promise<any>;
    onMessage: Event<(message: any, sender: MessageSender, sendResponse: (response?: unknown) => void) => boolean | void>;
    onStartup: Event<() => void>;
    onInstalled: Event<(details: { reason: string }) => void>;
    /** Messages of user scripts (chrome.userScripts with messaging); absent without the userScripts permission. */
    onUserScriptMessage?: Event<(message: any, sender: MessageSender, sendResponse: (response?: unknown) => void) => boolean | void>;
  };
  const storage: {
    local: {
      get(keys?: string | string[] | null): Promise<Record<string, any>>;
      set(items: Record<string, unknown>): Promise<void>;
      remove(keys: string | string[]): Promise<void>;
      setAccessLevel?(options: { accessLevel: string }): Promise<void>;
    };
  };
  const alarms: {
    create(name: string, info: { periodInMinutes?: number; delayInMinutes?: number }): Promise<void>;
    clear(name: string): Promise<boolean>;
    onAlarm: Event<(alarm: { name: string }) => void>;
  };
  const tabs: {
    get(tabId: number): Promise<Tab>;
    query(info: Record<string, unknown>): Promise<Tab[]>;
    create(props: { url?: string; active?: boolean; windowId?: number; openerTabId?: number }): Promise<Tab>;
    remove(tabId: number | number[]): Promise<void>;
    update(tabId: number, props: { active?: boolean; url?: string }): Promise<Tab>;
    group(options: { tabIds: number | number[]; groupId?: number; createProperties?: { windowId?: number } }): Promise<number>;
    ungroup(tabIds: number | number[]): Promise<void>;
    onCreated: Event<(tab: Tab) => void>;
    onRemoved: Event<(tabId: number, info: { windowId: number; isWindowClosing: boolean }) => void>;
    onUpdated: Event<(tabId: number, change: { url?: string; status?: string; title?: string }, tab: Tab) => void>;
  };
  const tabGroups: {
    update(groupId: number, props: { title?: string; color?: string; collapsed?: boolean }): Promise<unknown>;
    TAB_GROUP_ID_NONE: number;
  };
  const windows: {
    create(props: { url?: string; type?: string; width?: number; height?: number; focused?: boolean }): Promise<{ id?: number; tabs?: Tab[] }>;
    remove(windowId: number): Promise<void>;
    onRemoved: Event<(windowId: number) => void>;
    WINDOW_ID_NONE: number;
  };
  const action: {
    setBadgeText(details: { text: string; tabId?: number }): Promise<void>;
    setBadgeBackgroundColor(details: { color: string; tabId?: number }): Promise<void>;
  };
  const webNavigation: {
    onCreatedNavigationTarget: Event<(details: { sourceTabId: number; sourceFrameId: number; tabId: number; url: string }) => void>;
  };
  const extension: { isAllowedFileSchemeAccess(): Promise<boolean> };
}

// `chrome.debugger` (a reserved word as a declaration name): the worker reads it as `(chrome as any).debugger`.
interface ChromeDebuggerApi {
  attach(target: chrome.Debuggee, version: string): Promise<void>;
  detach(target: chrome.Debuggee): Promise<void>;
  sendCommand(target: chrome.Debuggee, method: string, params?: Record<string, unknown>): Promise<any>;
  sendCommand(target: chrome.Debuggee, method: string, params: Record<string, unknown>, callback: (result?: any) => void): void;
  onEvent: chrome.Event<(source: chrome.Debuggee, method: string, params?: Record<string, unknown>) => void>;
  onDetach: chrome.Event<(source: chrome.Debuggee, reason: string) => void>;
}
