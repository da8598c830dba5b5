/**
 * `tabwright scripts trust ID` (scripts a human marks as their own keep
 * `allow`; docs/userscripts.md, "AgentScripts and consent"): marks a stored script human-authored, or agent-written
 * again with `--revoke`. Like `permissions`, this is a CLI verb with no MCP
 * tool, so an agent cannot raise its own script's trust through tools/call;
 * it writes the store directly (SQLite, WAL: safe beside a running daemon).
 * A later save through export_script marks the script agent-written again.
 */
import { readFileSync } from 'node:fs';
import { dataDir } from '../config.js';
import { parseMetadata, scriptIdentity } from '../userscripts/metadata.js';
import type { ToolResult } from './call.js';
import { textOf } from './call.js';
import { cliError, TextResult } from './output.js';
import { defaultShape } from './toolCommand.js';

/** Sets the author of `scriptId`; returns `{scriptId, name, author}`. @throws CliError script_not_found (exit 1). */
export async function trustScript(scriptId: string, revoke: boolean): Promise<Record<string, unknown>> {
  const { ScriptStore } = await import('../userscripts/store.js');
  const store = ScriptStore.inDataDir(dataDir());
  try {
    const author = revoke ? 'agent' : 'human';
    const script = store.get(scriptId);
    if (!script || !store.setAuthor(scriptId, author)) {
      throw cliError('script_not_found', `There is no script ${scriptId}.`, '`tabwright scripts list` shows the scripts and their IDs.');
    }
    return { scriptId, name: script.name, author };
  } finally {
    store.close();
  }
}

/**
 * Whether a person runs this command at a terminal (docs/userscripts.md, "Who wrote a script"): stdin and stdout
 * are terminals, and the environment does not say an agent runs it (`TABWRIGHT_AGENT=1`, for agent harnesses that
 * give their shell a terminal).
 */
export function humanAtTerminal(env: NodeJS.ProcessEnv = process.env, streams: { stdin: { isTTY?: boolean }; stdout: { isTTY?: boolean } } = process): boolean {
  if (env.TABWRIGHT_AGENT === '1' || env.TABWRIGHT_AGENT === 'true') return false;
  return streams.stdin.isTTY === true && streams.stdout.isTTY === true;
}

/**
 * `scripts install`'s arguments (`path` already absolute): on a person's terminal, an edited copy of a script that
 * person installed (same @name and @namespace, author `human`) names that script's ID, since a save through the
 * tool is the agent's and an agent's save never replaces a human's script by identity alone (docs/userscripts.md).
 * Anything unreadable is left for the tool to report.
 */
export async function installArgs(args: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (typeof args.path !== 'string' || args.scriptId !== undefined || !humanAtTerminal()) return args;
  let code: string;
  try {
    code = readFileSync(args.path, 'utf8');
  } catch {
    return args;
  }
  const { metadata } = parseMetadata(code);
  if (!metadata) return args;
  const { ScriptStore } = await import('../userscripts/store.js');
  const store = ScriptStore.inDataDir(dataDir());
  try {
    const mine = store.byIdentity(scriptIdentity(metadata));
    return mine?.author === 'human' ? { ...args, scriptId: mine.id } : args;
  } finally {
    store.close();
  }
}

/**
 * `scripts install`'s output: the tool's result, and on a person's terminal (humanAtTerminal) the saved script
 * recorded as theirs, as `scripts trust` does (export_script itself saves as the agent: tools/call cannot tell).
 * The result then says `author: "human"`.
 * @throws CliError script_not_found when the script went away between the save and the mark.
 */
export async function installShape(result: ToolResult): Promise<unknown> {
  const scriptId = result.structuredContent?.scriptId;
  if (typeof scriptId !== 'string' || !humanAtTerminal()) return new TextResult(textOf(result), defaultShape(result));
  await trustScript(scriptId, false);
  const text = `${textOf(result)}\nRecorded as yours (installed from a terminal): \`tabwright scripts trust --revoke ${scriptId}\` makes it the agent's.`;
  return new TextResult(text, { ...(defaultShape(result) as object), author: 'human' });
}

