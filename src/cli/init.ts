/**
 * `tabwright init`: writes or updates a marked section in
 * ./AGENTS.md telling the next agent how to drive the browser from the
 * shell. Idempotent: the section between the markers is replaced, the rest
 * of the file is kept byte for byte; the write is atomic.
 */
import { accessSync, constants, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BEGIN = '<!-- tabwright:begin (written by `tabwright init`; edits inside are replaced) -->';
export const END = '<!-- tabwright:end -->';

/**
 * How the next agent runs this CLI: `tabwright` when an executable of that
 * name is on PATH, else `node <absolute path of this dist/cli.js>` (a clone
 * without a global install has no `tabwright` on PATH).
 */
export function cliCommand(path = process.env.PATH ?? ''): string {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, 'tabwright'), constants.X_OK);
      return 'tabwright';
    } catch {
      // not in this folder
    }
  }
  return `node ${join(dirname(dirname(fileURLToPath(import.meta.url))), 'cli.js')}`;
}

/** The section's text, markers included; `cmd` starts every command line (see cliCommand). */
export function agentsSection(cmd = cliCommand()): string {
  return [
    BEGIN,
    '## Browser: the `tabwright` CLI',
    '',
    `A real Chromium is available through the \`${cmd}\` command. Every command prints one JSON object on stdout`,
    '(`{"ok":true,"result":…}` or `{"ok":false,"error":{"type","message","hint"}}`); read the exit code first:',
    '0 ok, 2 usage, 3 browser/daemon unreachable, 4 auth, 5 cap reached, 6 consent denied, 7 consent expired,',
    '8 rejected by validation (diagnostics in the payload), 1 other.',
    '',
    '```sh',
    ...[
      'tabwright tab open https://example.com   # opens a tab; its result names the tabId',
      'tabwright use --tab 2                    # later commands in this directory act on that tab (2 here)',
      'tabwright context page                   # accessibility snapshot with refs (e12, ...)',
      'tabwright tool click --ref e12           # any tool by name: `tabwright tool --help`',
      'tabwright tool type --ref e7 --text "hello"',
      'tabwright shot -o page.png',
      'tabwright exec "document.title"',
      'tabwright tools                          # WebMCP tools the page offers; `tabwright call NAME --args JSON`',
      'tabwright schema                         # every command and tool schema as JSON',
    ].map(line => cmd === 'tabwright' ? line : line.replace(/^tabwright /, `${cmd} `).replace(/`tabwright /g, `\`${cmd} `)),
    '```',
    '',
    'Refs go stale when the page navigates: take a new snapshot. Do not retry on exit 6 or 7: ask the user.',
    END,
  ].join('\n');
}

/** Writes the section into `<dir>/AGENTS.md`: `created`, `updated` or `unchanged`. */
export function writeAgentsSection(dir: string): { file: string; action: 'created' | 'updated' | 'unchanged' } {
  const file = join(dir, 'AGENTS.md');
  let current: string | undefined;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  const section = agentsSection();
  let next: string;
  if (current === undefined) next = `${section}\n`;
  else {
    const start = current.indexOf(BEGIN);
    const end = start >= 0 ? current.indexOf(END, start) : -1;
    next = start >= 0 && end >= 0
      ? current.slice(0, start) + section + current.slice(end + END.length)
      : `${current}${current.endsWith('\n') || current === '' ? '' : '\n'}${current ? '\n' : ''}${section}\n`;
  }
  if (next === current) return { file, action: 'unchanged' };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, next);
  renameSync(tmp, file);
  return { file, action: current === undefined ? 'created' : 'updated' };
}
