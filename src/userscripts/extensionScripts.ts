/**
 * What the injector needs to run userscripts through the companion extension's chrome.userScripts
 * (docs/userscripts.md, "Through the extension"): the match patterns to register the engine for, and what to tell
 * a user whose "Allow User Scripts" toggle is off.
 */
import type { UserScriptsAvailability } from '../browser/connection.js';
import type { StoredScript } from './types.js';

/** The schemes Chrome runs user scripts on; tabwright's other match schemes (ws, wss, ftp, urn) never load pages there. */
const CHROME_PATTERN = /^(\*|https?|file):\/\/(\*|\*\.[^/*:]+|[^/*:]+)?(:(\*|\d+))?\/.*$/;

/**
 * The Chrome match patterns to register the engine for: the union of the scripts' `@match` patterns (compat forms
 * normalized as tabwright reads them), or `<all_urls>` when a script uses `@include` (globs and regexes have no
 * Chrome pattern) or `@match <all_urls>`. A coarse filter only: in each frame the engine decides which script runs
 * (`scriptMatchesUrl`), with excludes. Patterns that never match in tabwright (a TLD wildcard `example.*`) or name a
 * scheme Chrome does not inject into are left out. Empty: nothing to register.
 */
export function registrationMatches(scripts: readonly StoredScript[]): string[] {
  const out = new Set<string>();
  for (const script of scripts) {
    if (script.metadata.include.length) return ['<all_urls>'];
    for (const raw of script.metadata.match) {
      if (raw === '<all_urls>') return ['<all_urls>'];
      const pattern = raw.replace(/^http\*:\/\//, '*://').split('#')[0]!;
      if (/[^\x20-\x7e]/.test(pattern)) return ['<all_urls>']; // a Unicode host: tabwright compares it IDNA-encoded
      if (CHROME_PATTERN.test(pattern)) out.add(pattern);
    }
  }
  return [...out];
}

/** Where the toggle is, for get_bridge_status and `tabwright doctor`. */
export function allowUserScriptsHint(chromeMajor?: number): string {
  if (chromeMajor !== undefined && chromeMajor > 0 && chromeMajor < 138) {
    return 'Turn on Developer mode at chrome://extensions (Chrome before 138): tabwright then runs userscripts through chrome.userScripts.';
  }
  return 'Turn on "Allow User Scripts": chrome://extensions → tabwright → Details → Allow User Scripts (Chrome 138+; before 138, Developer mode). '
    + 'tabwright then runs userscripts through chrome.userScripts (checked by get_bridge_status and at every script change).';
}

/** Which way userscripts reach pages, as get_bridge_status reports it. */
export interface InjectionStatus {
  /** `chrome.userScripts`: registered by the extension; `cdp`: tabwright's init script over CDP. */
  path: 'chrome.userScripts' | 'cdp';
  /** The extension's answer, on the extension connection. */
  userScripts?: UserScriptsAvailability;
  /** How to turn chrome.userScripts on, when the extension has it off. */
  hint?: string;
}
