// The consent gate's terminal channel, end to end under a real
// pseudo-terminal: the built server runs under util-linux `script`, which
// gives it a controlling pty (its /dev/tty), while the MCP stream stays on
// the test's pipes (passed through as fds 3 and 4). The official client
// does NOT declare elicitation, so the gate asks on the terminal; the test
// reads the question from the pty and types the answer into it: once,
// always (saved, the next call is not asked), deny. Skipped when `script`
// is not installed.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { until } from '../fixtures/harness.js';
import { call, ROOT, serverArgs } from '../fixtures/mcp.js';
import { startSite, type Site } from '../fixtures/site.js';

function which(cmd: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}
const SCRIPT = which('script');
const MKFIFO = which('mkfifo');
const skip = !SCRIPT || !MKFIFO ? 'util-linux `script` or `mkfifo` is not installed (no way to give the server a pseudo-terminal)' : false;

const PAGE = `<!doctype html><title>Terminal</title>
<script>
  window.runs = { t_once: 0, t_always: 0, t_deny: 0 };
  for (const name of Object.keys(runs)) document.modelContext.registerTool({
    name, description: 'Changes ' + name, inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    execute: async ({ n }) => { runs[name]++; return { content: [{ type: 'text', text: name + ' ran ' + n }] }; },
  });
</script>`;

/** Single-quotes `s` for sh. */
function sq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

interface AuditLine {
  origin: string;
  tool: string;
  decision: string;
  channel: string;
  answer?: string;
}

let site: Site;
let dir: string;
let client: Client;
let answers: FileHandle;
/** Everything the server's terminal showed (the pty's output, as `script` writes it). */
let ttyLog: string;

before(async () => {
  if (skip) return;
  site = await startSite();
  site.page('/terminal', PAGE);
  dir = mkdtempSync(join(tmpdir(), 'tabwright-pty-'));
  const fifo = join(dir, 'answers');
  ttyLog = join(dir, 'tty.log');
  execFileSync(MKFIFO!, [fifo]);
  // The server's stdin/stdout are the transport's pipes (fds 3 and 4 through `script`);
  // its stderr and /dev/tty are the pty. What the test writes to the fifo is typed on the pty.
  const run = join(dir, 'run.sh');
  writeFileSync(run, `exec ${[process.execPath, ...serverArgs()].map(sq).join(' ')} <&3 >&4\n`);
  const transport = new StdioClientTransport({
    command: 'sh',
    args: ['-c', `exec 3<&0 4>&1; exec ${sq(SCRIPT!)} -qfec ${sq(`sh ${sq(run)}`)} /dev/null < ${sq(fifo)} > ${sq(ttyLog)}`],
    stderr: 'pipe',
    cwd: ROOT,
    env: {
      ...(process.env as Record<string, string>),
      SHELL: '/bin/sh',
      TABWRIGHT_WORKSPACE: join(dir, 'ws'),
      TABWRIGHT_CONFIG_DIR: join(dir, 'config'),
      TABWRIGHT_DATA_DIR: join(dir, 'data'),
      TABWRIGHT_CONSENT_TTY: '1',
    },
  });
  // The shell opens the fifo for reading only once a writer opens it: open ours without blocking the loop.
  const opening = open(fifo, 'w');
  client = new Client({ name: 'tabwright-pty-test', version: '0.0.0' }, { versionNegotiation: { mode: 'legacy' } }); // no elicitation
  await client.connect(transport);
  answers = await opening;
});

after(async () => {
  await client?.close().catch(() => undefined);
  await answers?.close().catch(() => undefined);
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function shown(): string {
  return existsSync(ttyLog) ? readFileSync(ttyLog, 'utf8') : '';
}

/** Waits until the terminal showed `text` after offset `from` (generous bound: the machine is shared). */
async function untilShown(text: string, from: number, ms = 30_000): Promise<void> {
  await until(() => `the terminal to show ${JSON.stringify(text)}; it showed:\n${shown().slice(from)}`, () => shown().slice(from).includes(text), ms);
}

/** Calls `tool`, waits for its question on the terminal, types `answer` and Enter; the call's raw result. */
async function askAndAnswer(tool: string, answer: string) {
  const from = shown().length;
  const pending = client.callTool({ name: 'call_webmcp_tool', arguments: { name: tool, arguments: { n: 7 } } });
  await untilShown(`An agent wants to call the WebMCP tool "${tool}" of ${site.origin}`, from);
  await untilShown('[y] allow once  [a] always allow  [n] deny  [d] always deny: ', from);
  const question = shown().slice(from);
  assert.match(question, new RegExp(`The page describes it as: "Changes ${tool}"`));
  assert.match(question, /Arguments: \{"n":7\}/);
  await answers.write(`${answer}\n`);
  return await pending;
}

function audit(): AuditLine[] {
  return readFileSync(join(dir, 'data', 'consent-audit.jsonl'), 'utf8').trim().split('\n').map(l => JSON.parse(l) as AuditLine);
}

test('a prompt is asked on the server\'s terminal and answered there: once, always, deny', { skip }, async () => {
  await call(client, 'navigate', { url: `${site.origin}/terminal` });
  const { tools } = await call<{ tools: Array<{ name: string; permission: string }> }>(client, 'list_webmcp_tools');
  assert.deepEqual(tools.map(t => [t.name, t.permission]), [['t_always', 'prompt'], ['t_deny', 'prompt'], ['t_once', 'prompt']]);

  const once = await askAndAnswer('t_once', 'y');
  assert.equal(once.isError, undefined);
  assert.deepEqual((once.structuredContent as { result: unknown }).result, { content: [{ type: 'text', text: 't_once ran 7' }] });

  const always = await askAndAnswer('t_always', 'a');
  assert.equal(always.isError, undefined);
  // Saved: the next call runs without a question.
  const before = shown().length;
  assert.deepEqual((await call<{ result: unknown }>(client, 'call_webmcp_tool', { name: 't_always', arguments: { n: 8 } })).result, { content: [{ type: 'text', text: 't_always ran 8' }] });
  assert.equal(shown().slice(before).includes('An agent wants to call'), false);

  const deny = await askAndAnswer('t_deny', 'n');
  assert.equal(deny.isError, true);
  assert.equal((deny.structuredContent as { error: { type: string } }).error.type, 'consent_denied');
  // The page's tool ran exactly for the approved calls.
  assert.deepEqual((await call<{ value: unknown }>(client, 'execute', { code: 'runs' })).value, { t_once: 1, t_always: 2, t_deny: 0 });

  assert.deepEqual(audit().map(l => [l.tool, l.decision, l.channel, l.answer, l.origin]), [
    ['t_once', 'allowed', 'terminal', 'once', site.origin],
    ['t_always', 'allowed', 'terminal', 'always', site.origin],
    ['t_always', 'allowed', 'override', undefined, site.origin],
    ['t_deny', 'denied', 'terminal', 'deny', site.origin],
  ]);
  // "always" was saved as an override, "deny" was not.
  const after = await call<{ tools: Array<{ name: string; permission: string }> }>(client, 'list_webmcp_tools');
  assert.deepEqual(after.tools.map(t => [t.name, t.permission]), [['t_always', 'allow'], ['t_deny', 'prompt'], ['t_once', 'prompt']]);
});
