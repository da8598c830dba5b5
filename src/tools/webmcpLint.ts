/**
 * lint_webmcp_tools (tool set `webmcp-dev`; docs/webmcp-dev.md, "Lint"): checks the WebMCP tools a tab registered
 * against the rules of src/webmcp/lintRules.ts, from the tab's listing (the same one list_webmcp_tools reads), its
 * declarative forms' fields, and the probes of ./webmcpLintProbe.ts in a throwaway context.
 */
import * as z from 'zod';
import { staticFindings, type FormFields, type LintFinding, type LintTool } from '../webmcp/lintRules.js';
import { defineTabTool } from './define.js';
import { tabIdField } from './schemas.js';
import { frameTools } from './webmcp.js';
import { probeTools } from './webmcpLintProbe.js';

/** The fields of each `<form toolname>` of the main frame that have neither a label nor toolparamdescription. */
const FORM_FIELDS = `[...document.querySelectorAll('form[toolname]')].map(form => ({
  tool: form.getAttribute('toolname'),
  undescribed: [...form.elements]
    .filter(e => e.name && !['hidden', 'submit', 'button', 'reset', 'image'].includes(e.type) && !['BUTTON', 'FIELDSET', 'OUTPUT', 'OBJECT'].includes(e.tagName))
    .filter(e => !(e.getAttribute('toolparamdescription') || '').trim() && ![...(e.labels || [])].some(l => l.textContent.trim()))
    .map(e => e.name),
}))`;

export const lintWebmcpTools = defineTabTool({
  name: 'lint_webmcp_tools',
  title: 'Lint WebMCP tools',
  description:
    'For the developer of the page: check the WebMCP tools a tab registered (names, duplicates, descriptions, object schemas, ' +
    'annotations, form fields, toolautosubmit) and probe them in a throwaway browser context (readOnlyHint tools that change ' +
    'the page or ignore a cancel; tools left after a route change). Each finding: rule, tool, why, fix.',
  needs: ['webmcp'],
  toolset: 'webmcp-dev',
  effect: 'observe',
  launchesBrowser: false,
  target: 'tab',
  input: z.object({ tabId: tabIdField }),
  async handle(tab, _input, ctx, res) {
    const { session } = ctx;
    const listing = await frameTools(tab, 5_000, session.config.webmcp, session.userscripts);
    const tools: LintTool[] = listing.tools.filter(t => t.info.source !== 'agentscript').map(({ info }) => ({
      name: info.name, description: info.description,
      ...(info.frameUrl ? { frameUrl: info.frameUrl } : {}),
      ...(info.inputSchema !== undefined ? { inputSchema: info.inputSchema } : {}),
      ...(info.annotations ? { annotations: info.annotations } : {}),
      ...(info.form ? { form: info.form } : {}),
    }));
    const formTools = new Set(tools.filter(t => t.form && !t.frameUrl).map(t => t.name));
    const forms = (await tab.page.evaluate(FORM_FIELDS).catch(() => []) as FormFields[]).filter(f => formTools.has(f.tool));
    const findings: LintFinding[] = staticFindings(tools, listing.rejected, forms);
    const url = tab.page.url();
    const { findings: probed, report } = await probeTools(tab.page, url, tools, session.runtimeScript(), session.connection.kind);
    findings.push(...probed);
    const order = (f: LintFinding) => `${f.severity === 'error' ? 0 : 1}${f.tool}\u0000${f.rule}`;
    findings.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));

    res.merge({ tabId: tab.id, url, tools: tools.map(t => t.name), findings, probes: report });
    res.text(`${findings.length} finding${findings.length === 1 ? '' : 's'} for the ${tools.length} WebMCP tool${tools.length === 1 ? '' : 's'} of tab ${tab.id} (${url})${findings.length ? ':' : '.'}`);
    for (const f of findings) res.text(`- [${f.rule}] ${f.severity} ${JSON.stringify(f.tool)}${f.frameUrl ? ` (frame ${f.frameUrl})` : ''}: ${f.why} Fix: ${f.fix}`);
    if (report.notRun) res.text(`Not probed: ${report.notRun}; readonly-mutates, abort-ignored and route-lingering were not checked.`);
    else {
      res.text(report.called.length ? `Probed in a throwaway context by calling the readOnlyHint tools: ${report.called.join(', ')} (other tools are never called).` : 'No readOnlyHint tool to call in the throwaway context (other tools are never called).');
      if (report.route && 'skipped' in report.route) res.text(`Route change not probed: ${report.route.skipped}.`);
      else if (report.route) res.text(`Route change probed: ${report.route.from} → ${report.route.to} by a link click.`);
    }
  },
});

export const webmcpDevTools = [lintWebmcpTools];
