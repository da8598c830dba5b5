/**
 * The server `instructions` (MCP lifecycle, InitializeResult.instructions):
 * a routing text. Claude Code's tool search and Codex's `tool_search` read it
 * to decide when to load tabwright's tools, and Claude Code cuts it silently
 * at 2,048 characters (docs/clients.md), so what tabwright is for comes
 * first and the whole stays under that (test/mcp/clientFit.test.ts).
 */
export const INSTRUCTIONS = [
  'tabwright drives a real Chromium for you: open pages, read them as compact accessibility snapshots with refs, click, type, fill forms, handle dialogs, popups, uploads and downloads, take screenshots, run JavaScript, read the console, and call the tools a page offers (WebMCP). Use it whenever a task needs a live web page: a site that needs JavaScript or a sign-in, testing a web app, filling a form, checking what a page shows.',
  '',
  'Loop: navigate {url} → get_page_context (refs like e12) → click / type / fill_form {ref} → read what the action reports (the element it acted on, navigation, new tabs, dialogs, what changed on the page). Refs belong to one document: after a navigation take a new snapshot. wait_for {text | ref | url | request …} waits for what an action set going. Tools act on the active tab unless given tabId; list_tabs shows the tabs.',
  '',
  'Page tools: list_webmcp_tools, then call_webmcp_tool; the human approves risky calls (consent).',
  'To let the user show you elements: pick_elements (they click them in the browser; you get selectors, refs and screenshots).',
  'A call that would block longer than the max wait (45 s by default) returns pending with a callId: call wait_for_call {callId} for its outcome.',
  'Errors read "Error [type]: message" with a Hint naming the next step.',
  '',
  'Tool sets (--toolsets all turns on every one; env TABWRIGHT_TOOLSETS): core (the default: tabs, navigation, snapshots, input, dialogs, files, screenshots, execute, console, WebMCP, status); scripts (userscripts, AgentScripts); storage (saved sign-ins, cookies, web storage); network (routes, mocks, HAR); emulation (devices, locale, geolocation, offline); recording (WebM of a tab); tasks (run_task/extract: a configured model runs a whole task with these tools); webmcp-dev (lint the WebMCP tools of pages you develop).',
  'Handbooks (MCP resources): tabwright://conventions, tabwright://userscript-conventions, tabwright://agentscript-conventions.',
].join('\n');
