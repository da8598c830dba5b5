/**
 * `@connect`: the hosts a script's GM_xmlhttpRequest and GM_download may reach, read as Tampermonkey reads it
 * (https://www.tampermonkey.net/documentation.php#meta:connect; docs/userscripts.md, "GM API"): a domain covers
 * itself and every subdomain (on label boundaries), an IP address only itself, `self` the host of the page the script
 * runs in, `localhost` the loopback host (`localhost`, `127.0.0.1`, `[::1]`), `*` every host. `*.example.com` is read
 * as `example.com`. Both the first URL and every redirect's are checked.
 */
import type { ScriptMetadata } from './types.js';

/** The script's `@connect` values (metadata stored before tabwright read the key kept them in `extra.connect`). */
export function connectList(meta: Pick<ScriptMetadata, 'connect' | 'extra'>): string[] {
  return meta.connect ?? (meta.extra?.connect ?? []).map(v => v.trim().toLowerCase()).filter(Boolean);
}

/** A URL's host as @connect compares it: lower case, no trailing dot, IPv6 without brackets. */
export function connectHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '').replace(/^\[(.*)\]$/, '$1');
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1']);

/**
 * The `@connect` entry that lets a request reach `host`, or undefined when none does.
 * @param host      the target's host (`connectHost` form).
 * @param pageHost  the host of the document the script runs in, for `self` (`connectHost` form; '' when it has none).
 */
export function connectEntryFor(list: readonly string[], host: string, pageHost: string): string | undefined {
  return list.find(raw => {
    const entry = connectHost(raw.startsWith('*.') ? raw.slice(2) : raw);
    if (entry === '*') return true;
    if (entry === 'self') return pageHost !== '' && host === pageHost;
    if (entry === 'localhost') return LOOPBACK.has(host) || host.endsWith('.localhost');
    if (/^[\d.]+$/.test(entry) || entry.includes(':')) return host === entry;
    return host === entry || host.endsWith(`.${entry}`);
  });
}
