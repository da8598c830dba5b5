/**
 * One declaration per tool (STYLE.md, "One declarative definition per
 * tool"): the MCP tool, the CLI verb, the daemon route, docs/tools.md and
 * `tabwright schema` all read it.
 */
import type * as z from 'zod';
import type { Capability } from '../browser/capabilities.js';
import type { Toolset } from '../config.js';
import type { CallContext } from './context.js';
import type { ToolResponse } from './response.js';

/**
 * How risky a call is; drives MCP annotations now and the consent gate later
 * (issue #5): `observe` reads, `interact` changes page state, `sensitive`
 * runs arbitrary code or reaches outside the page.
 */
export type ConsentClass = 'observe' | 'interact' | 'sensitive';

export interface ToolDef<Input extends z.ZodObject = z.ZodObject> {
  /** snake_case verb, exactly as the issues name it. */
  name: string;
  title: string;
  /** What the model reads to decide when and how to call the tool. */
  description: string;
  /** Connection capabilities the tool needs; missing ones fail with capability_unavailable. */
  needs: readonly Capability[];
  consent: ConsentClass;
  /** Whether the call starts the browser when it is not running (false: answers without it). */
  launchesBrowser: boolean;
  /**
   * Whether the call's effect cannot be undone from the page (closing a tab, running arbitrary code, deleting
   * a script): the MCP `destructiveHint` (src/mcp/server.ts). Default false; `observe` tools are read-only.
   */
  destructive?: boolean;
  /** The tool set that lists it over MCP (`--toolsets`; issue #6); default `core`. Every front still runs it by name. */
  toolset?: Toolset;
  /**
   * Whether a call takes its tab's FIFO lock (issue #7, src/dispatch/tabLocks.ts).
   * Default: tools that can change a page and name a tab (`tabId` input).
   */
  tabLock?: boolean;
  input: Input;
  handle(input: z.output<Input>, ctx: CallContext, res: ToolResponse): Promise<void>;
}

/** Identity function that keeps the input type for the handler. */
export function defineTool<Input extends z.ZodObject>(def: ToolDef<Input>): ToolDef<Input> {
  return def;
}

/** Erases the input type so tools of different shapes share one array. */
export type AnyTool = ToolDef<z.ZodObject>;
