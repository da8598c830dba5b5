/**
 * The userscript tools (toolset `scripts`, opt-in over MCP with
 * `--toolsets scripts|all`): export_script, import_script, list_scripts,
 * delete_script, toggle_script and sync_scripts. None starts the browser.
 * The names look out from the agent's workspace, as userscript managers do:
 * export_script saves a workspace file (or inline code) *into* the store
 * (the save pipeline of src/userscripts/saves.ts); import_script writes a
 * stored script *out* to a workspace file.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../config.js';
import * as z from 'zod';
import type { CallContext } from './context.js';
import { fetchRemote } from '../userscripts/remoteFetch.js';
import { hostDenial, hostDeniedError } from '../consent/policy.js';
import { defineTool } from './define.js';
import { ToolError } from '../errors.js';
import { resolveUploadPaths } from './files.js';
import { resourceSummaries, scriptSummary } from '../userscripts/resources.js';
import { scriptNotFound, type SaveRequest } from '../userscripts/saves.js';
import { scriptService } from '../userscripts/service.js';
import { scriptSlug } from '../userscripts/slug.js';
import { MANIFEST, scriptFileSuffix } from '../userscripts/sync.js';
import type { StoredScript } from '../userscripts/types.js';
import { decodeScriptBytes, resolveWritablePath, writeFileAtomic } from '../userscripts/workspacePaths.js';

/**
 * Fetches a remote `@require` or `@resource` at save time (SaveRequest.fetchRemote): the host rules of the policy hold
 * for the libraries and resources a script names, as for every page request (docs/policy.md), on each redirect too.
 * @throws ToolError policy_denied_host (from hostDeniedError) for a host the rules refuse; what fetchRemote throws.
 */
function remoteFetcher(config: Config): NonNullable<SaveRequest['fetchRemote']> {
  return (url, signal) => fetchRemote(url, target => {
    const denial = hostDenial(config.policy, target);
    if (denial) throw hostDeniedError(denial, config.policy);
  }, signal);
}

/**
 * Reads local `@require` and `@resource` files relative to `baseDir`, under the same rules as upload paths (inside
 * the workspace or an allowed root, after symlinks; a regular file), as bytes, at most `maxBytes` each
 * (SaveRequest.readLocal). The URL is percent-decoded (`my%20lib.js`).
 */
export function localReader(baseDir: string, config: Pick<Config, 'workspace' | 'allowedRoots'>): (url: string, maxBytes: number) => Uint8Array {
  return (url, maxBytes) => {
    const [file] = resolveUploadPaths([resolve(baseDir, decodeURI(url))], config);
    if (statSync(file!).size > maxBytes) throw new ToolError('invalid_arguments', `${url} is larger than ${maxBytes} bytes.`, 'Name a smaller file.');
    return readFileSync(file!);
  };
}

const scriptIdField = z.string().min(1).max(100).describe('Script ID (list_scripts)');

function service(ctx: CallContext) {
  return scriptService(ctx.config);
}

function storedOrThrow(ctx: CallContext, scriptId: string): StoredScript {
  const script = service(ctx).store.get(scriptId);
  if (!script) throw scriptNotFound(scriptId);
  return script;
}

export const exportScript = defineTool({
  name: 'export_script',
  title: 'Save a script',
  description:
    'Validate and save a userscript or AgentScript from a workspace file or inline code; without scriptId it creates one, ' +
    'or updates in place the agent-written script with the same @name and @namespace. ' +
    'Pass expectedCodeHash (from import_script) to reject a save over newer code.',
  needs: [],
  effect: 'sensitive',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({
    path: z.string().min(1).optional().describe('Script file, relative to the workspace'),
    code: z.string().min(1).optional().describe('Script source, instead of path'),
    scriptId: scriptIdField.optional().describe('Update this script (default: create)'),
    expectedCodeHash: z.string().regex(/^[0-9a-f]{64}$/).optional().describe('codeHash the stored script must still have'),
    refetch: z.boolean().optional().describe('Fetch remote @require libraries and @resource files again (default: keep the copies pinned at the first save)'),
  }),
  async handle({ path, code, scriptId, expectedCodeHash, refetch }, ctx, res) {
    if ((path === undefined) === (code === undefined)) {
      throw new ToolError('invalid_arguments', 'Pass exactly one of path and code.', 'path names a file in the workspace; code is the source itself.');
    }
    const file = path !== undefined ? resolveUploadPaths([path], ctx.config)[0]! : undefined;
    const source = file !== undefined ? decodeScriptBytes(readFileSync(file), path!) : code!;
    const result = await service(ctx).saves.save({
      code: source,
      readLocal: localReader(file !== undefined ? dirname(file) : ctx.config.workspace, ctx.config),
      fetchRemote: remoteFetcher(ctx.config),
      refetch,
      scriptId,
      expectedCodeHash,
      replaceSameIdentity: true,
      author: 'agent',
      signal: ctx.signal,
      progress: (done, total, message) => ctx.progress(done, total, message),
    });
    await ctx.session.userscripts?.settled(); // the next page load gets the new code
    const s = result.script;
    res.merge({
      operationId: result.operationId,
      scriptId: s.id,
      created: result.created,
      name: s.name,
      kind: s.kind,
      enabled: s.enabled,
      codeHash: s.codeHash,
      ...(result.replacedCodeHash ? { replacedCodeHash: result.replacedCodeHash } : {}),
      stages: result.stages,
      warnings: result.warnings,
    });
    res.text(`${result.created ? 'Created' : 'Updated'} ${s.kind} "${s.name}" (${s.id}), codeHash ${s.codeHash}, operation ${result.operationId}.`);
    if (result.replacedCodeHash === s.codeHash) res.text(`It is the same code as stored script ${s.id} (same @name and @namespace): the code did not change.`);
    else if (result.replacedCodeHash) res.text(`It had the same @name and @namespace as stored script ${s.id}, which it replaced in place (its code was codeHash ${result.replacedCodeHash}).`);
    for (const w of result.warnings) res.text(`warning ${w.line}:${w.column} ${w.code}: ${w.message}`);
    const remote = (s.metadata.requireCode ?? []).filter(r => r.sha256);
    if (remote.length) {
      res.set('remoteRequires', remote.map(r => ({ url: r.url, sha256: r.sha256, bytes: Buffer.byteLength(r.code) })));
      res.text(`Remote @require pinned (${refetch ? 'fetched again' : 'fetched at the first save, kept until refetch: true'}): ${remote.map(r => `${r.url} sha256 ${r.sha256!.slice(0, 12)}…`).join(', ')}.`);
    }
    const resources = service(ctx).store.resources(s.id);
    if (resources.length) {
      res.set('resources', resourceSummaries(resources));
      res.text(`@resource stored (remote ones ${refetch ? 'fetched again' : 'fetched at the first save and pinned until refetch: true'}): ${resources.map(r => `${r.name} ${r.mime} ${r.bytes.byteLength} bytes sha256 ${r.sha256.slice(0, 12)}…`).join(', ')}.`);
    }
  },
});

export const importScript = defineTool({
  name: 'import_script',
  title: 'Write a script to a file',
  description: 'Write a stored script byte-exact to a workspace file (default .tabwright/scripts/<slug>.user.js or .agent.js); returns the path and codeHash.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({
    scriptId: scriptIdField,
    path: z.string().min(1).optional().describe('Target file, relative to the workspace'),
  }),
  async handle({ scriptId, path }, ctx, res) {
    const s = storedOrThrow(ctx, scriptId);
    const target = resolveWritablePath(path ?? join('.tabwright', 'scripts', `${scriptSlug(s.name)}${scriptFileSuffix(s)}`), ctx.config);
    writeFileAtomic(target, s.code);
    res.merge({ scriptId: s.id, path: target, codeHash: s.codeHash, name: s.name, kind: s.kind });
    res.text(`Wrote "${s.name}" to ${target} (codeHash ${s.codeHash}); pass it as expectedCodeHash when you save your edit.`);
  },
});

export const listScripts = defineTool({
  name: 'list_scripts',
  title: 'List scripts',
  description: 'Every stored userscript and AgentScript: ID, name, kind, enabled, author, match patterns, codeHash.',
  needs: [],
  effect: 'observe',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({}),
  async handle(_input, ctx, res) {
    const scripts = service(ctx).store.list().map(scriptSummary);
    res.set('scripts', scripts);
    res.text(`${scripts.length} script${scripts.length === 1 ? '' : 's'}.`);
    for (const s of scripts) res.text(`${s.scriptId} ${s.kind} "${s.name}" ${s.enabled ? 'enabled' : 'disabled'} ${[...s.match, ...s.include].join(' ')}`);
  },
});

export const deleteScript = defineTool({
  name: 'delete_script',
  title: 'Delete a script',
  description: 'Delete a stored script and its stored values for good.',
  needs: [],
  effect: 'sensitive',
  launchesBrowser: false,
  destructive: true,
  toolset: 'scripts',
  input: z.object({ scriptId: scriptIdField }),
  async handle({ scriptId }, ctx, res) {
    const s = storedOrThrow(ctx, scriptId);
    if (!service(ctx).store.delete(scriptId)) throw scriptNotFound(scriptId);
    await ctx.session.userscripts?.settled();
    res.merge({ scriptId, deleted: true });
    res.text(`Deleted "${s.name}" (${scriptId}).`);
  },
});

export const toggleScript = defineTool({
  name: 'toggle_script',
  title: 'Enable or disable a script',
  description: 'Enable or disable a stored script; takes effect on the next page load.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({
    scriptId: scriptIdField,
    enabled: z.boolean().describe('true runs the script on matching pages'),
  }),
  async handle({ scriptId, enabled }, ctx, res) {
    const s = storedOrThrow(ctx, scriptId);
    if (!service(ctx).store.setEnabled(scriptId, enabled)) throw scriptNotFound(scriptId);
    await ctx.session.userscripts?.settled();
    res.merge({ scriptId, enabled });
    res.text(`${enabled ? 'Enabled' : 'Disabled'} "${s.name}" (${scriptId}).`);
  },
});

export const syncScripts = defineTool({
  name: 'sync_scripts',
  title: 'Sync scripts to a folder',
  description:
    `Write every script to a workspace folder (one file each, plus ${MANIFEST}), then watch it: a saved file is exported automatically, ` +
    'a stale edit is a conflict listed by get_bridge_status.',
  needs: [],
  effect: 'interact',
  launchesBrowser: false,
  toolset: 'scripts',
  input: z.object({
    directory: z.string().min(1).describe('Folder, relative to the workspace'),
  }),
  async handle({ directory }, ctx, res) {
    const dir = resolveWritablePath(directory, ctx.config);
    // A file saved in the folder later gets its libraries and resources as export_script does.
    const files = await service(ctx).sync.syncTo(dir, { readLocal: localReader(dir, ctx.config), fetchRemote: remoteFetcher(ctx.config) });
    res.merge({ directory: dir, manifest: join(dir, MANIFEST), files, watching: true });
    res.text(`Wrote ${files.length} script file${files.length === 1 ? '' : 's'} to ${dir}; watching it for edits.`);
  },
});

export const scriptTools = [exportScript, importScript, listScripts, deleteScript, toggleScript, syncScripts];
