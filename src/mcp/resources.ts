/**
 * The MCP resources of the userscripts (docs/userscripts.md, "Resources";
 * src/userscripts/resources.ts has the
 * content): the script list, one script by ID (a resource template whose
 * list callback names every script), and the three handbooks. Served in
 * every tool set; reads go through the dispatcher. Also the WebMCP handbook for app developers
 * (src/webmcp/handbook.ts), which is static text and needs no dispatcher.
 */
import { McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { Dispatcher } from '../dispatch/dispatcher.js';
import { SCRIPT_RESOURCE_TEMPLATE, STATIC_RESOURCES } from '../userscripts/resources.js';
import { WEBMCP_HANDBOOK, webmcpHandbook } from '../webmcp/handbook.js';

/** Registers the WebMCP handbook and the script resources on `server` (the latter only when the dispatcher can read resources). */
export function registerResources(server: McpServer, dispatcher: Dispatcher): void {
  const h = WEBMCP_HANDBOOK;
  server.registerResource(h.name, h.uri, { title: h.title, description: h.description, mimeType: h.mimeType },
    async uri => ({ contents: [{ uri: uri.href, mimeType: h.mimeType, text: webmcpHandbook() }] }));
  const read = dispatcher.readResource?.bind(dispatcher);
  if (!read) return;
  const contents = async (uri: string) => {
    const found = await read(uri);
    if (!found) throw new ResourceNotFoundError(uri, `There is no resource ${uri}; tabwright://scripts lists the scripts.`);
    return { contents: found };
  };
  for (const r of STATIC_RESOURCES) {
    server.registerResource(r.name, r.uri, { title: r.title, description: r.description, mimeType: r.mimeType }, async uri => await contents(uri.href));
  }
  server.registerResource(
    'script',
    new ResourceTemplate(SCRIPT_RESOURCE_TEMPLATE, {
      list: async () => {
        const list = await read('tabwright://scripts');
        const scripts = list ? (JSON.parse(list[0]!.text) as { scripts: Array<{ scriptId: string; name: string }> }).scripts : [];
        return { resources: scripts.map(s => ({ uri: `tabwright://scripts/${encodeURIComponent(s.scriptId)}`, name: s.name, mimeType: 'text/javascript' })) };
      },
    }),
    { title: 'Script', description: 'One stored script: its source and metadata.' },
    async uri => await contents(uri.href),
  );
}
