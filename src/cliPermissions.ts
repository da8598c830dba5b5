/**
 * `tabwright permissions list|reset`: the saved "always allow" /
 * "always deny" answers of the consent gate, and the rules file. JSON on
 * stdout (`{ ok, result }`), like every CLI verb (docs/cli.md, "Output contract").
 * There is deliberately no MCP tool for this: an agent must not be able to
 * clear the user's "always deny", and tools/list stays small.
 */
import type { Command } from 'commander';
import { configDir, dataDir } from './config.js';
import { auditPath } from './consent/audit.js';
import { matchOverrides, overridesPath, readOverrides, resetOverrides, type OverrideFilter } from './consent/overrides.js';
import { readRules, rulesPath } from './consent/rules.js';
import { succeed } from './cli/output.js';

/** Prints `{ok: true, result}` by the CLI's output contract (src/cli/output.ts: compact unless --pretty). */
async function print(value: { ok: true; result: unknown }): Promise<void> {
  await succeed(value.result);
}

function filterOf(flags: { origin?: string; tool?: string; script?: string }): OverrideFilter {
  return { origin: flags.origin, tool: flags.tool, scriptId: flags.script };
}

/** Adds `permissions list` and `permissions reset` to `program`. */
export function addPermissionsCommand(program: Command): void {
  const permissions = program.command('permissions').description('list or reset the consent gate\'s saved "always allow" / "always deny" answers');
  const withFilter = (cmd: Command) => cmd
    .option('--origin <origin>', 'only this origin (exact, e.g. https://shop.example.com; * = the every-origin code grants)')
    .option('--tool <name>', 'only this tool name (exact: a WebMCP tool, or execute / add_element)')
    .option('--script <id>', 'only this AgentScript id (exact)');

  withFilter(permissions.command('list').description('print the saved answers and the rules file'))
    .action(async (flags: { origin?: string; tool?: string; script?: string }) => {
      const dir = configDir();
      const { rules, error } = readRules(dir);
      await print({
        ok: true,
        result: {
          overrides: matchOverrides(readOverrides(dir), filterOf(flags)),
          overridesFile: overridesPath(dir),
          rulesFile: rulesPath(dir),
          rules,
          ...(error ? { rulesError: error } : {}),
          auditLog: auditPath(dataDir()),
        },
      });
    });

  withFilter(permissions.command('reset').description('forget saved answers (all of them without filters)'))
    .action(async (flags: { origin?: string; tool?: string; script?: string }) => {
      const removed = resetOverrides(configDir(), filterOf(flags));
      await print({ ok: true, result: { removed } });
    });
}
