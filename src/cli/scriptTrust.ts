/**
 * `tabwright scripts trust ID` (scripts a human marks as their own keep
 * `allow`; docs/userscripts.md, "AgentScripts and consent"): marks a stored script human-authored, or agent-written
 * again with `--revoke`. Like `permissions`, this is a CLI verb with no MCP
 * tool, so an agent cannot raise its own script's trust through tools/call;
 * it writes the store directly (SQLite, WAL: safe beside a running daemon).
 * A later save through export_script marks the script agent-written again.
 */
import { dataDir } from '../config.js';
import { cliError } from './output.js';

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
