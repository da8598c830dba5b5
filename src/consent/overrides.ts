/**
 * Saved "always allow" / "always deny" answers: one per origin +
 * tool, or per AgentScript + tool; for tabwright's own code tools (`execute`,
 * `add_element`: `builtin`) one per origin + tool, per origin + tool + code
 * (`codeHash`), or per tool on every origin (`origin` `*`; docs/policy.md,
 * "Consent for code"). They live in
 * `permission-overrides.json` in the config dir (written atomically: a
 * temporary file of mode 0600, then a rename), are read afresh at every
 * gated call (so `tabwright permissions reset` takes effect in a running
 * server) and survive restarts. Version 1 files (WebMCP answers only, the
 * shape before code grants) read as they are; the next save writes version 2.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { logger } from '../log.js';

const log = logger('consent');

const OverrideSchema = z.object({
  origin: z.string(),
  tool: z.string(),
  scriptId: z.string().optional(),
  /** A tabwright tool that runs the agent's code (`execute`, `add_element`), not a page's WebMCP tool of that name. */
  builtin: z.literal(true).optional(),
  /** For `builtin`: the answer covers only this code (./codeGrant.ts codeHash, 64 hex characters). */
  codeHash: z.string().regex(/^[0-9a-f]{64}$/).optional(),
  permission: z.enum(['allow', 'deny']),
  /** ISO 8601 time of the answer. */
  created: z.string(),
});

/**
 * One saved answer. With `scriptId` it applies to that script's tool on any origin. With `builtin`, to tabwright's
 * own tool: on `origin` (`*`: every origin), and with `codeHash` to that code only.
 */
export type Override = z.infer<typeof OverrideSchema>;

/** The file's current version: 2 added `builtin` and `codeHash` (and origin `*` for them). */
const VERSION = 2;

const FileSchema = z.object({ version: z.union([z.literal(1), z.literal(VERSION)]), overrides: z.array(OverrideSchema) });

/** `permission-overrides.json` in the config dir. */
export function overridesPath(configDir: string): string {
  return join(configDir, 'permission-overrides.json');
}

/** The saved overrides; none when the file is missing. A corrupt file is logged and read as none. */
export function readOverrides(configDir: string): Override[] {
  let text: string;
  try {
    text = readFileSync(overridesPath(configDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') log.warn(`cannot read ${overridesPath(configDir)}:`, (error as Error).message);
    return [];
  }
  try {
    const file = FileSchema.parse(JSON.parse(text));
    // Version 1 held WebMCP answers only: a code tool's fields in it were not written by tabwright, and are dropped.
    return file.version === 1 ? file.overrides.filter(o => !o.builtin && o.codeHash === undefined) : file.overrides;
  } catch (error) {
    log.warn(`${overridesPath(configDir)} is not a valid overrides file, ignored:`, (error as Error).message);
    return [];
  }
}

function writeOverrides(configDir: string, overrides: Override[]): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const file = overridesPath(configDir);
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ version: VERSION, overrides }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // the umask may have narrowed it; never wider than 0600
  renameSync(tmp, file);
}

type OverrideKey = Pick<Override, 'origin' | 'tool' | 'scriptId' | 'builtin' | 'codeHash'>;

function sameKey(a: OverrideKey, b: OverrideKey): boolean {
  if (a.tool !== b.tool || !a.builtin !== !b.builtin || a.codeHash !== b.codeHash) return false;
  if (a.scriptId !== undefined || b.scriptId !== undefined) return a.scriptId === b.scriptId;
  return a.origin === b.origin;
}

/** Saves (or replaces) the answer for one origin + tool, script + tool, or (builtin) origin + tool + code. */
export function saveOverride(configDir: string, entry: Omit<Override, 'created'>): Override {
  const saved: Override = { ...entry, created: new Date().toISOString() };
  const kept = readOverrides(configDir).filter(o => !sameKey(o, entry));
  writeOverrides(configDir, [...kept, saved]);
  return saved;
}

/** Filter of `reset`: every given field must equal the override's (origin and tool exact, no patterns). */
export interface OverrideFilter {
  origin?: string;
  tool?: string;
  scriptId?: string;
  codeHash?: string;
}

/** The overrides `filter` selects. */
export function matchOverrides(overrides: Override[], filter: OverrideFilter): Override[] {
  return overrides.filter(o =>
    (filter.origin === undefined || o.origin === filter.origin)
    && (filter.tool === undefined || o.tool === filter.tool)
    && (filter.scriptId === undefined || o.scriptId === filter.scriptId)
    && (filter.codeHash === undefined || o.codeHash === filter.codeHash));
}

/** Removes the overrides `filter` selects (all of them with an empty filter); returns those removed. */
export function resetOverrides(configDir: string, filter: OverrideFilter = {}): Override[] {
  const all = readOverrides(configDir);
  const removed = matchOverrides(all, filter);
  if (removed.length) writeOverrides(configDir, all.filter(o => !removed.includes(o)));
  return removed;
}
