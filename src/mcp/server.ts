/**
 * The MCP front: one McpServer per connection, every registry tool
 * registered from its declaration, each call a thin adapter over invokeTool
 * (docs/mcp.md, "Registering the tools").
 */
import { McpServer, type McpRequestContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { capabilityManifest } from '../browser/capabilities.js';
import { connectionKindOf, type Config } from '../config.js';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import type { PendingCalls } from '../dispatch/pending.js';
import type { ClientInfo } from '../tools/context.js';
import type { AnyTool } from '../tools/define.js';
import { TOOLS } from '../tools/registry.js';
import { clientResult } from './clientResult.js';
import { consentStateCodec, elicitationChannel } from './consentChannel.js';
import { INSTRUCTIONS } from './instructions.js';
import { registerResources } from './resources.js';
import { VERSION } from '../version.js';

/** JSON Schema of a tool's input, as tools/list, docs/tools.md and `tabwright schema` show it. */
export function inputJsonSchema(tool: AnyTool): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.input, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** A `maximum` at or above this is a sanity cap (tab ids, ms, offsets), not guidance for the model. */
const SANITY_MAXIMUM = 100_000;

/**
 * The schema tools/list advertises: `inputJsonSchema` without the sanity bounds a model never needs to see (every
 * byte of tools/list is paid in each agent's context, docs/clients.md): `maxLength` (length caps), `minLength: 1`
 * (non-empty strings), a `maximum` of SANITY_MAXIMUM or more, and the `minimum` of such a field when it is 0 or 1.
 * The bounds that guide a call (a quality of 1..100, a limit of 50, timeoutSec up to 300) stay. invokeTool still
 * validates every bound, and an out-of-bound value is `invalid_arguments` naming it; docs/tools.md and
 * `tabwright schema` show them all.
 */
export function leanJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(leanJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  const node = schema as Record<string, unknown>;
  const capped = typeof node.maximum === 'number' && node.maximum >= SANITY_MAXIMUM;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'maxLength' || (key === 'minLength' && value === 1)) continue;
    if (capped && (key === 'maximum' || (key === 'minimum' && (value === 0 || value === 1)))) continue;
    // `properties` maps names to schemas (a property may be called "maxLength"); the other keys hold schemas.
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, leanJsonSchema(v)]));
    else out[key] = SUBSCHEMA_KEYS.has(key) ? leanJsonSchema(value) : value;
  }
  return out;
}

/** The JSON Schema keys whose value is a schema or a list of schemas (zod's output uses these). */
const SUBSCHEMA_KEYS = new Set(['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'not', 'additionalProperties']);

const jsonSchemas = new WeakMap<AnyTool, Record<string, unknown>>();

/** The advertised (lean) schema, converted once per process and only when first asked for (tools/list), not before `initialize` answers. */
function cachedJsonSchema(tool: AnyTool): Record<string, unknown> {
  let json = jsonSchemas.get(tool);
  if (!json) jsonSchemas.set(tool, (json = leanJsonSchema(inputJsonSchema(tool)) as Record<string, unknown>));
  return json;
}

/**
 * A Standard Schema that advertises the tool's real JSON Schema but lets
 * every value through, so that invalid input reaches invokeTool and comes
 * back as our `invalid_arguments` error (type + hint) rather than the SDK's
 * untyped "Input validation error".
 */
function advertisedSchema(tool: AnyTool) {
  const json = () => cachedJsonSchema(tool);
  return {
    '~standard': {
      version: 1 as const,
      vendor: 'tabwright',
      validate: (value: unknown) => ({ value: (value ?? {}) as Record<string, unknown> }),
      jsonSchema: { input: json, output: json },
    },
  };
}

/**
 * MCP tool annotations from the tool's `effect` and `destructive`, with only the hints that differ
 * from the spec's defaults (readOnlyHint false, destructiveHint true,
 * idempotentHint false, openWorldHint true: MCP schema, ToolAnnotations), since
 * every byte of tools/list is paid in each agent's context.
 */
function annotationsOf(tool: AnyTool): { readOnlyHint?: true; destructiveHint?: false } {
  if (tool.effect === 'observe') return { readOnlyHint: true };
  return tool.destructive ? {} : { destructiveHint: false };
}

/**
 * The `_meta` key of the initialize result that carries the capability manifest: a prefix of our own in reverse
 * DNS notation, as the MCP specification asks of `_meta` keys ("General fields", `_meta`).
 */
export const CAPABILITIES_META_KEY = 'io.tabwright/capabilities';

/**
 * Puts the capability manifest of the configured connection kind (src/browser/capabilities.ts) on the initialize
 * result's `_meta` under CAPABILITIES_META_KEY, so a client sees what works here before its first call. The
 * browser is not connected yet: it is what the kind supports. The SDK (2.4) has no option for an initialize
 * `_meta`, so its own initialize handler is wrapped (a method its typings mark private); if a later SDK drops it,
 * the result goes out without the key and get_bridge_status still has the manifest. The 2026-07-28 era has no
 * initialize: there get_bridge_status is the way (docs/mcp.md, "Capability manifest").
 */
function announceCapabilities(server: McpServer, config: Config): void {
  const low = server.server as unknown as { _oninitialize?: (request: unknown) => Promise<Record<string, unknown>> };
  const initialize = low._oninitialize?.bind(server.server);
  if (!initialize) return;
  const meta = { [CAPABILITIES_META_KEY]: capabilityManifest(connectionKindOf(config)) };
  server.server.setRequestHandler('initialize', async request => {
    const result = await initialize(request);
    return { ...result, _meta: { ...(result._meta as Record<string, unknown> | undefined), ...meta } } as Awaited<ReturnType<typeof initialize>> as never;
  });
}

/**
 * Builds the server for one MCP connection (stdio) or request (HTTP).
 * @param calls  the process's pending calls (src/dispatch/pending.ts): one per front process, shared by its
 *   connections and requests, so a `wait_for_call` finds the call whichever request answered pending.
 * @param front  the transport, as the dashboard's list of sessions names it (ClientInfo.front).
 */
export function buildServer(dispatcher: Dispatcher, config: Config, request: McpRequestContext, calls: PendingCalls, front: 'mcp-stdio' | 'mcp-http' = 'mcp-stdio'): McpServer {
  const server = new McpServer({ name: 'tabwright', version: VERSION }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS, requestState: { verify: consentStateCodec.verify } });
  registerResources(server, dispatcher);
  announceCapabilities(server, config);
  // Only the configured tool sets are listed; the dispatcher still runs any tool by name.
  // The task tools need a model: without one they are not listed (get_bridge_status says why; docs/tasks.md).
  for (const tool of TOOLS.filter(t => !t.humanOnly && config.toolsets.includes(t.toolset ?? 'core') && (t.toolset !== 'tasks' || config.llm))) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: advertisedSchema(tool),
        annotations: annotationsOf(tool),
      },
      async (args, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        const client: ClientInfo = {
          protocolVersion: server.server.getNegotiatedProtocolVersion(),
          era: request.era,
          name: server.server.getClientVersion()?.name,
          version: server.server.getClientVersion()?.version,
          front,
        };
        const prompt = elicitationChannel(server, request.era, ctx, config.consent.timeoutMs);
        // A call still running after --max-wait answers pending; wait_for_call is answered there too.
        const result = await calls.call(dispatcher, tool.name, args, {
          signal: ctx.mcpReq.signal,
          client,
          prompt,
          async progress(done, total, message) {
            if (token === undefined) return;
            await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total, message } });
          },
        }, config.maxWaitMs);
        // The consent gate handed its question to the client (2026-07-28): the retry brings the answer.
        if (prompt?.pending) return prompt.pending;
        return clientResult(result, config.structuredContent);
      },
    );
  }
  return server;
}
