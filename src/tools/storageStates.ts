/**
 * The saved storage states of the `storage` tool set (docs/storage.md): save_storage_state, load_storage_state,
 * list_storage_states, delete_storage_state. Results name counts per origin, never a cookie's or an item's value.
 */
import * as z from 'zod';
import { checkNavigation } from '../consent/policy.js';
import { ToolError } from '../errors.js';
import { applyState, collectState, httpOrigin, type OriginCounts } from '../session/storageState.js';
import { checkStateName, deleteState, listStates, readState, writeState } from '../session/storageStateFile.js';
import { plural } from '../util/plural.js';
import { defineTool } from './define.js';

const nameField = z.string().max(200).describe('The state\'s name: letters, digits, ".", "_", "-" (e.g. "github-alice")');

/**
 * The http(s) origins of `urls`, each checked against the host policy.
 * @throws ToolError invalid_arguments (not an http(s) URL), policy_denied_host.
 */
function originsOf(urls: readonly string[], policy: Parameters<typeof checkNavigation>[0]): string[] {
  return [...new Set(urls.map(url => {
    const origin = httpOrigin(url);
    if (!origin) throw new ToolError('invalid_arguments', `"${url.slice(0, 200)}" is not an http(s) origin.`, 'Pass origins like https://example.com (a URL works: its origin is taken).');
    checkNavigation(policy, origin);
    return origin;
  }))];
}

/** One line per origin: `https://a.example: 2 localStorage items, 1 IndexedDB record`. */
function countLines(counts: readonly OriginCounts[]): string[] {
  return counts.map(c => `- ${c.origin}: ${plural(c.localStorage, 'localStorage item')}, ${plural(c.indexedDB, 'IndexedDB record')}${c.via === 'scratch' ? ' (through a background page, no tab shows it)' : ''}`);
}

/** Cookies per domain, sorted: `example.com (2), .example.org (1)`. */
function cookieDomains(cookies: ReadonlyArray<{ domain: string }>): string {
  const by = new Map<string, number>();
  for (const c of cookies) by.set(c.domain, (by.get(c.domain) ?? 0) + 1);
  return [...by].sort(([a], [b]) => a.localeCompare(b)).map(([d, n]) => `${d} (${n})`).join(', ');
}

export const saveStorageState = defineTool({
  name: 'save_storage_state',
  title: 'Save the storage state',
  description: 'Save the browser\'s cookies and the localStorage and IndexedDB of chosen origins (default: those the tabs show) under a name, to keep a sign-in across runs or hand it to another agent (load_storage_state). Overwrites a state of that name; the result gives counts, never values.',
  needs: ['storage'],
  effect: 'sensitive',
  launchesBrowser: true,
  toolset: 'storage',
  input: z.object({
    name: nameField,
    origins: z.array(z.string().max(2048)).max(100).optional().describe('Origins to save (https://example.com): their cookies and web storage only. Default: every cookie, and the web storage of the origins the tabs show'),
  }),
  async handle({ name, origins }, ctx, res) {
    const wanted = origins === undefined ? undefined : originsOf(origins, ctx.config.policy);
    // Checked before the browser is touched: a bad name costs nothing.
    checkStateName(name);
    const { state, counts } = await collectState(ctx.session, wanted);
    const saved = writeState(ctx.config.dataDir, ctx.config.configDir, name, state, ctx.config.stateEncryption);
    res.merge({ name, path: saved.path, size: saved.size, encrypted: saved.header.encrypted, savedAt: saved.header.savedAt, cookieCount: state.cookies.length, origins: counts });
    res.text(`Saved storage state "${name}" to ${saved.path} (${saved.size} bytes, ${saved.header.encrypted ? 'encrypted with AES-256-GCM' : 'not encrypted: start the server with --state-encryption to seal it'}; mode 0600).`);
    res.text(`${plural(state.cookies.length, 'cookie')}${state.cookies.length ? `: ${cookieDomains(state.cookies)}` : ''}.`);
    res.text(counts.length ? `Web storage:\n${countLines(counts).join('\n')}` : 'Web storage: no tab shows an http(s) origin and none was named, so none was saved.');
  },
});


export const loadStorageState = defineTool({
  name: 'load_storage_state',
  title: 'Load a storage state',
  description: 'Load a state save_storage_state saved into the browser: its cookies are added and its origins\' localStorage items and IndexedDB records written, leaving other data as it is; open tabs see them on their next load. The result gives counts per origin, never values.',
  needs: ['storage'],
  effect: 'sensitive',
  launchesBrowser: true,
  toolset: 'storage',
  input: z.object({ name: nameField }),
  async handle({ name }, ctx, res) {
    const { header, state, path } = readState(ctx.config.dataDir, ctx.config.configDir, name);
    for (const o of state.origins) checkNavigation(ctx.config.policy, o.origin);
    const counts = await applyState(ctx.session, state);
    res.merge({ name, path, savedAt: header.savedAt, encrypted: header.encrypted, cookieCount: state.cookies.length, origins: counts });
    res.text(`Loaded storage state "${name}" (saved ${header.savedAt}${header.encrypted ? ', encrypted' : ''}).`);
    res.text(`${plural(state.cookies.length, 'cookie')} added${state.cookies.length ? `: ${cookieDomains(state.cookies)}` : ''}.`);
    if (counts.length) res.text(`Web storage written:\n${countLines(counts).join('\n')}`);
    res.text('Tabs already open show it after a reload (reload_tab) or their next navigation.');
  },
});

export const listStorageStates = defineTool({
  name: 'list_storage_states',
  title: 'List saved storage states',
  description: 'List the saved storage states: name, size, when saved, origins, cookie count and domains, encrypted or not (never values).',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  toolset: 'storage',
  input: z.object({}),
  async handle(_input, ctx, res) {
    const states = listStates(ctx.config.dataDir);
    res.merge({ states });
    if (!states.length) {
      res.text('No storage state is saved (save_storage_state saves one).');
      return;
    }
    res.text(`${plural(states.length, 'saved storage state')}:`);
    for (const s of states) {
      res.text(`- ${s.name}: ${s.size} bytes, saved ${s.savedAt}, ${s.encrypted ? 'encrypted' : 'not encrypted'}; ${plural(s.cookieCount, 'cookie')}${s.cookieDomains.length ? ` (${s.cookieDomains.join(', ')})` : ''}; web storage of ${s.origins.join(', ') || 'no origin'}`);
    }
  },
});

export const deleteStorageState = defineTool({
  name: 'delete_storage_state',
  title: 'Delete a saved storage state',
  description: 'Delete a saved storage state by name (the browser is not changed).',
  needs: [],
  effect: 'interact',
  destructive: true,
  launchesBrowser: false,
  toolset: 'storage',
  input: z.object({ name: nameField }),
  async handle({ name }, ctx, res) {
    deleteState(ctx.config.dataDir, name);
    res.merge({ name, deleted: true });
    res.text(`Deleted storage state "${name}".`);
  },
});

export const storageStateTools = [saveStorageState, loadStorageState, listStorageStates, deleteStorageState];
