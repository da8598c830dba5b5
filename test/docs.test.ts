import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from './fixtures/mcp.js';
import { renderExitCodesSection, renderVerbsSection } from '../src/docs/cliDoc.js';
import { renderToolsSection, toolSources } from '../src/docs/toolsDoc.js';
import { DAEMON_ERROR_TYPES } from '../src/daemon/httpErrors.js';
import { DASHBOARD_ERROR_TYPES } from '../src/dashboard/guard.js';
import { ERROR_TYPES } from '../src/errors.js';
import { TOOLS } from '../src/tools/registry.js';

const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');

test('docs/tools.md is generated from the current tool declarations', async () => {
  assert.ok(read('docs', 'tools.md').includes(renderToolsSection(await toolSources())), 'docs/tools.md is out of date: run npm run docs');
});

test('docs/cli.md\'s verb and exit-code tables are generated from the current command tree and exit codes', async () => {
  const doc = read('docs', 'cli.md');
  assert.ok(doc.includes(await renderVerbsSection()), 'the verb table of docs/cli.md is out of date: run npm run docs');
  assert.ok(doc.includes(renderExitCodesSection()), 'the exit-code table of docs/cli.md is out of date: run npm run docs');
});

test('docs/errors.md documents every error type', () => {
  const doc = read('docs', 'errors.md');
  for (const type of ERROR_TYPES) assert.match(doc, new RegExp(`\\| \`${type}\` \\|`), `${type} is not in docs/errors.md`);
});

test('docs/daemon.md documents every error type of the daemon\'s HTTP answers', () => {
  const doc = read('docs', 'daemon.md');
  for (const type of DAEMON_ERROR_TYPES) assert.match(doc, new RegExp(`\`${type}\``), `${type} is not in docs/daemon.md`);
});

test('docs/errors.md documents every error type of the dashboard in its Dashboard section', () => {
  const section = /## Dashboard\n([\s\S]*?)\n## /.exec(read('docs', 'errors.md'))?.[1] ?? '';
  for (const type of DASHBOARD_ERROR_TYPES) assert.match(section, new RegExp(`\\| \`${type}\` \\|`), `${type} is not in docs/errors.md's Dashboard section`);
});

test('every tool name is a snake_case verb with a described input', () => {
  for (const tool of TOOLS) {
    assert.match(tool.name, /^[a-z]+(_[a-z]+)*$/);
    for (const [key, field] of Object.entries(tool.input.shape)) {
      assert.ok((field as { description?: string }).description, `${tool.name}.${key} has no description`);
    }
  }
});

test('docs/architecture.md stays a map: at most 150 lines', () => {
  const lines = read('docs', 'architecture.md').trimEnd().split('\n').length;
  assert.ok(lines <= 150, `docs/architecture.md has ${lines} lines; move detail into a topic doc or next to the code`);
});

/** GitHub's anchors of a markdown file's headings (lower case, punctuation dropped, spaces to hyphens, -1 for repeats). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}

/** The markdown without fenced code blocks and inline code (links there are not links). */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

test('docs/architecture.md\'s layer diagram draws the layers of src/DEPS.list, in their order', async () => {
  // @ts-expect-error: a plain .mjs script without types
  const { parseRules } = (await import('../scripts/checkDeps.mjs')) as { parseRules(text: string): { layers: Array<{ name: string; units: string[] }>; bottom: string[] } };
  const rules = parseRules(readFileSync(join(ROOT, 'src/DEPS.list'), 'utf8'));
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const diagram = /## Layers\n\n```\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(diagram, 'architecture.md has a ## Layers diagram');
  // Every folder unit of every layer but the programs, at the position of its layer: a layer's folders all come
  // after every folder of the layers above it.
  let lastOfAbove = -1;
  for (const layer of rules.layers.filter(l => l.name !== 'programs')) {
    const folders = layer.units.filter(u => u.endsWith('/')).map(u => `src/${u.slice(0, -1)}`);
    const at = folders.map(f => {
      const i = diagram.search(new RegExp(`${f.replace('/', '\\/')}(?![\\w/])`));
      assert.ok(i >= 0, `the diagram draws ${f} (layer ${layer.name})`);
      return i;
    });
    assert.ok(Math.min(...at) > lastOfAbove, `layer ${layer.name} (${folders.join(', ')}) is drawn below the layers above it`);
    lastOfAbove = Math.max(...at);
  }
  for (const unit of rules.bottom) assert.match(diagram, new RegExp(`src/${unit.replace(/\/$/, '').replace('.', '\\.')}`), `the diagram names the bottom unit ${unit}`);
});

test('every relative link in README.md and docs/ names a file that exists, and a heading that exists', () => {
  const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter(f => f.endsWith('.md')).map(f => join('docs', f))];
  const broken: string[] = [];
  for (const file of files) {
    const text = read(file);
    for (const [, target] of withoutCode(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue; // http:, https:, mailto:
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path ? join(dirname(join(ROOT, file)), decodeURI(path)) : join(ROOT, file);
      if (!existsSync(resolved)) {
        broken.push(`${file}: ${target} (no file ${relative(ROOT, resolved)})`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});
