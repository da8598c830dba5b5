/**
 * Where a WebMCP tool's permission comes from,
 * in order: a saved override ("always allow" / "always deny" for that
 * origin + tool, or that script + tool; ./overrides.ts), then the user's
 * rules file (`permissions.json` in the config dir), then defaults: a
 * `readOnlyHint` tool is `allow`, any other (with or without
 * `consequentialHint`) is `prompt`.
 *
 * The rules file:
 *
 * ```json
 * { "rules": [
 *   { "origin": "https://shop.example.com", "tool": "checkout*", "permission": "deny" },
 *   { "origin": "http://127.0.0.1:*", "annotations": { "readOnlyHint": true }, "permission": "allow" }
 * ] }
 * ```
 *
 * Every field of a rule but `permission` is optional and narrows it; the
 * first rule that matches decides. `origin`, `tool` and `scriptId` are glob
 * patterns where `*` matches any run of characters; `annotations` values
 * (`readOnlyHint`, `consequentialHint`, `untrustedContentHint`, `debugging`)
 * must equal the tool's hints (a missing hint counts as `false`). A rules
 * file that cannot be read as this shape is not ignored: every tool then
 * resolves to `prompt` (source `rules_invalid`) and a warning goes to stderr,
 * so a broken deny rule never turns into a silent allow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { logger } from '../log.js';
import { readOverrides, type Override } from './overrides.js';

const log = logger('consent');

export type Permission = 'allow' | 'prompt' | 'deny';

/** The annotations a WebMCP tool declares (WebMCP `annotations`, named as list_webmcp_tools reports them). */
export interface ToolHints {
  readOnlyHint?: boolean;
  consequentialHint?: boolean;
  untrustedContentHint?: boolean;
  /** The page marks the tool as meant for development and debugging (WebMCP `debugging`); rules can match it. */
  debugging?: boolean;
}

/** What the gate judges: one tool of one origin (or one AgentScript). */
export interface ConsentSubject {
  /** Origin of the frame that registered the tool, e.g. `https://shop.example.com`. */
  origin: string;
  /** The tool's name as the page registered it. */
  name: string;
  /** The hints the tool declared; absent when it declared none (every hint then counts as false). */
  annotations?: ToolHints;
  /**
   * Who registered it: the browser's native WebMCP, the polyfill, or an AgentScript; `userscript` for a userscript's
   * request to a host (`@connect <host>`, src/userscripts/gmServer.ts); `task` for a consequential step of a task
   * run (src/tasks/runner.ts, tool `run_task:<tool>`).
   */
  source: 'native' | 'polyfill' | 'agentscript' | 'userscript' | string;
  /** The AgentScript that registered the tool, when one did (overrides can be per script). */
  scriptId?: string;
  /** The AgentScript's `// @webmcp <tool> <permission>` for this tool, when it declares one. */
  declared?: Permission;
  /** Who wrote that AgentScript: an agent's declared `allow` resolves to `prompt`. */
  author?: 'agent' | 'human';
  /**
   * A tabwright tool that runs the agent's code (`execute`, `add_element`; source `tabwright`): only its own saved
   * answers and the rules with `"source": "tabwright"` apply to it, and its default is `allow` (./codeGrant.ts).
   */
  builtin?: true;
  /** For `builtin`: the hash of the code of this call (./codeGrant.ts codeHash), which `code` grants match. */
  codeHash?: string;
}

/**
 * Where a permission came from; `rules_invalid` = the rules file is broken, so `prompt`;
 * `script` = the AgentScript's `@webmcp` declaration.
 */
export type PermissionSource = 'override' | 'rules' | 'script' | 'default' | 'rules_invalid';

export interface ResolvedPermission {
  permission: Permission;
  source: PermissionSource;
  /** Index of the deciding rule in permissions.json (source `rules`). */
  rule?: number;
}

const HintsSchema = z.strictObject({
  readOnlyHint: z.boolean().optional(),
  consequentialHint: z.boolean().optional(),
  untrustedContentHint: z.boolean().optional(),
  debugging: z.boolean().optional(),
});

const RuleSchema = z.strictObject({
  origin: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  scriptId: z.string().min(1).optional(),
  source: z.enum(['native', 'polyfill', 'agentscript', 'tabwright', 'userscript', 'task']).optional(),
  annotations: HintsSchema.optional(),
  permission: z.enum(['allow', 'prompt', 'deny']),
  /** Free text for the human who wrote the rule. */
  comment: z.string().optional(),
});

const RulesFileSchema = z.strictObject({ rules: z.array(RuleSchema) });

export type Rule = z.infer<typeof RuleSchema>;

/** `permissions.json` in the config dir. */
export function rulesPath(configDir: string): string {
  return join(configDir, 'permissions.json');
}

/** Compiles a glob (`*` = any run of characters, everything else literal) to an anchored RegExp. */
export function globToRegExp(glob: string): RegExp {
  const body = glob.split('*').map(part => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${body}$`, 's');
}

function globMatches(glob: string | undefined, value: string | undefined): boolean {
  if (glob === undefined) return true;
  if (value === undefined) return false;
  return globToRegExp(glob).test(value);
}

/** True when every field `rule` sets matches `subject`. */
export function ruleMatches(rule: Rule, subject: ConsentSubject): boolean {
  if (!globMatches(rule.origin, subject.origin)) return false;
  if (!globMatches(rule.tool, subject.name)) return false;
  if (!globMatches(rule.scriptId, subject.scriptId)) return false;
  if (rule.source !== undefined && rule.source !== subject.source) return false;
  for (const [key, want] of Object.entries(rule.annotations ?? {})) {
    if (Boolean(subject.annotations?.[key as keyof ToolHints]) !== want) return false;
  }
  return true;
}

/** The defaults (docs/webmcp.md, "Consent gate"): `readOnlyHint` -> allow; `consequentialHint` or no hint -> prompt. */
export function defaultPermission(hints: ToolHints): Permission {
  return hints.readOnlyHint && !hints.consequentialHint ? 'allow' : 'prompt';
}

/**
 * Reads the rules file. `undefined` rules = no file (defaults apply);
 * `error` = the file exists but is not valid (the caller falls back to prompt).
 */
export function readRules(configDir: string): { rules: Rule[]; error?: string } {
  let text: string;
  try {
    text = readFileSync(rulesPath(configDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { rules: [] };
    return { rules: [], error: `cannot read ${rulesPath(configDir)}: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { rules: [], error: `${rulesPath(configDir)} is not JSON: ${(error as Error).message}` };
  }
  const parsed = RulesFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { rules: [], error: `${rulesPath(configDir)}: ${issue?.path.join('.') || '(file)'}: ${issue?.message}` };
  }
  return { rules: parsed.data.rules };
}

/** The overrides and rules as they are on disk now; resolve as many tools against it as needed. */
export class ConsentPolicy {
  constructor(
    readonly overrides: Override[],
    readonly rules: Rule[],
    readonly rulesError?: string,
  ) {}

  /** Loads the rules file and the overrides file, both in the config dir. */
  static load(dirs: { configDir: string }): ConsentPolicy {
    const { rules, error } = readRules(dirs.configDir);
    if (error) log.warn(`permission rules ignored, every WebMCP tool (and execute, add_element) will prompt: ${error}`);
    return new ConsentPolicy(readOverrides(dirs.configDir), rules, error);
  }

  /**
   * The permission of one tool: override, then rules, then the AgentScript's
   * `@webmcp` declaration (an agent-written script's `allow` is `prompt`
   * until the human answers "always allow", which is an override),
   * then defaults.
   */
  resolve(subject: ConsentSubject): ResolvedPermission {
    if (subject.builtin) return this.resolveCode(subject);
    const byScript = subject.scriptId !== undefined
      ? this.overrides.find(o => o.scriptId === subject.scriptId && o.tool === subject.name)
      : undefined;
    const override = byScript ?? this.overrides.find(o => !o.builtin && o.scriptId === undefined && o.origin === subject.origin && o.tool === subject.name);
    if (override) return { permission: override.permission, source: 'override' };
    if (this.rulesError) return { permission: 'prompt', source: 'rules_invalid' };
    const index = this.rules.findIndex(rule => ruleMatches(rule, subject));
    if (index >= 0) return { permission: this.rules[index]!.permission, source: 'rules', rule: index };
    if (subject.declared) return { permission: subject.declared === 'allow' && subject.author !== 'human' ? 'prompt' : subject.declared, source: 'script' };
    return { permission: defaultPermission(subject.annotations ?? {}), source: 'default' };
  }

  /**
   * A code tool's permission (docs/policy.md, "Consent for code"): its saved answer for this code on this origin,
   * else for any code on this origin, else for any code on every origin; then the rules that name `"source":
   * "tabwright"` (other rules are about WebMCP tools); then `allow`, as these tools ran before they were gated.
   */
  private resolveCode(subject: ConsentSubject): ResolvedPermission {
    const mine = this.overrides.filter(o => o.builtin && o.tool === subject.name);
    const override = (subject.codeHash !== undefined ? mine.find(o => o.origin === subject.origin && o.codeHash === subject.codeHash) : undefined)
      ?? mine.find(o => o.origin === subject.origin && o.codeHash === undefined)
      ?? mine.find(o => o.origin === '*' && o.codeHash === undefined);
    if (override) return { permission: override.permission, source: 'override' };
    if (this.rulesError) return { permission: 'prompt', source: 'rules_invalid' };
    const index = this.rules.findIndex(rule => rule.source === 'tabwright' && ruleMatches(rule, subject));
    if (index >= 0) return { permission: this.rules[index]!.permission, source: 'rules', rule: index };
    return { permission: 'allow', source: 'default' };
  }
}

/**
 * The permission of one WebMCP tool as the gate would resolve it now, for
 * list entries (`permission` of list_webmcp_tools) and the polyfill. Reads
 * the overrides and rules files on every call; to resolve many tools, load a
 * ConsentPolicy once.
 */
export function permissionFor(config: { configDir: string }, subject: ConsentSubject): ResolvedPermission {
  return ConsentPolicy.load(config).resolve(subject);
}
