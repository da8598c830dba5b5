/**
 * Screenshot sizes: what take_screenshot returns, in bytes and image tokens,
 * per format, quality and maximum width, on the bench's generated pages and
 * the real corpus pages. The measurement behind the defaults of
 * `--screenshot-format`, `--screenshot-quality` and `--screenshot-max-width`
 * (docs/screenshots.md, "Screenshot sizes"). Standalone, not part of `npm run bench`:
 *
 *   npm run build && node --import tsx bench/screenshotSizes.ts [--corpus ../shared/corpus/pages]
 *     [--widths 1280,1024,800] [--save DIR] [--out bench/results/screenshot-sizes]
 *
 * One built server (dist/cli.js mcp --headless --isolated, viewport 1280x720)
 * per width, with `--screenshot-max-width` set to it, driven over stdio with
 * the official MCP client; the pages are served on 127.0.0.1 (bench/pages.ts).
 * Per page and encoding: a viewport shot (inline) and a full-page shot in the
 * default `auto` output, which returns the top of the page cut to the inline
 * budget and writes the whole page to a file. Sizes come from the images
 * themselves (the image block, the file the text names): bytes, and pixels
 * read from the header; image tokens are Claude's estimate, width × height / 750.
 * `--save DIR` keeps every inline image, to look at.
 * Writes `<out>.json` (every shot) and `<out>.md` (the table), and prints the table.
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { imageSize } from '../src/tools/imageSize.js';
import { corpusPages, GENERATED, startSite, type BenchPage } from './pages.js';
import { HOST_RULES } from './servers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** One encoding measured: a format and, for jpeg and webp, a quality. */
interface Encoding {
  format: 'png' | 'jpeg' | 'webp';
  quality?: number;
}

const ENCODINGS: Encoding[] = [
  { format: 'png' },
  ...[50, 70, 80, 90].map(quality => ({ format: 'jpeg' as const, quality })),
  ...[50, 70, 80, 90].map(quality => ({ format: 'webp' as const, quality })),
];

/** One image measured. */
interface Shot {
  page: string;
  kind: 'generated' | 'corpus';
  /** viewport: the inline viewport shot; full-inline: the inline part of a full-page shot; full-file: the whole page written to a file. */
  shot: 'viewport' | 'full-inline' | 'full-file';
  maxWidth: number;
  encoding: string;
  bytes: number;
  width: number;
  height: number;
  /** Claude's estimate: width × height / 750, rounded up. */
  tokens: number;
  /** Round trip of the call, ms (the full-page call's for both of its images). */
  ms: number;
}

function label(e: Encoding): string {
  return e.quality === undefined ? e.format : `${e.format} q${e.quality}`;
}

/** The value at quantile `q` (0..1) of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function kb(bytes: number): string {
  return (bytes / 1024).toFixed(bytes < 10_240 ? 1 : 0);
}

async function startServer(maxWidth: number, workspace: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'dist', 'cli.js'), 'mcp', '--headless', '--isolated', '--browser-arg', HOST_RULES, '--screenshot-max-width', String(maxWidth)],
    env: { ...(process.env as Record<string, string>), TABWRIGHT_WORKSPACE: workspace, TABWRIGHT_CONFIG_DIR: join(workspace, '.config'), TABWRIGHT_DATA_DIR: join(workspace, '.data') },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'tabwright-screenshot-sizes', version: '0.1.0' });
  await client.connect(transport);
  return client;
}

interface Result {
  text: string;
  images: Array<{ data: Buffer; mimeType: string }>;
  ms: number;
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Result> {
  const t = performance.now();
  const r = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  const ms = performance.now() - t;
  const content = (r.content ?? []) as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  const text = content.filter(c => c.type === 'text').map(c => c.text ?? '').join('\n');
  if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${text}`);
  return { text, ms, images: content.filter(c => c.type === 'image').map(c => ({ data: Buffer.from(c.data!, 'base64'), mimeType: c.mimeType ?? '' })) };
}

function measure(data: Buffer, base: Omit<Shot, 'bytes' | 'width' | 'height' | 'tokens'>): Shot {
  const size = imageSize(data);
  if (!size) throw new Error(`${base.page} ${base.shot} ${base.encoding}: not a PNG, JPEG or WebP`);
  return { ...base, bytes: data.length, width: size.width, height: size.height, tokens: Math.ceil((size.width * size.height) / 750) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: join(ROOT, '..', 'shared', 'corpus', 'pages') },
      widths: { type: 'string', default: '1280,1024,800' },
      save: { type: 'string' },
      out: { type: 'string', default: join(ROOT, 'bench', 'results', 'screenshot-sizes') },
    },
  });
  const corpus = resolve(values.corpus!);
  const widths = values.widths!.split(',').map(Number);
  const pages: BenchPage[] = [...GENERATED, ...(existsSync(corpus) ? corpusPages(corpus) : [])];
  if (!existsSync(corpus)) console.error(`no corpus at ${corpus}: generated pages only`);
  if (values.save) mkdirSync(values.save, { recursive: true });
  const site = await startSite(existsSync(corpus) ? corpus : undefined);
  const shots: Shot[] = [];
  try {
    for (const maxWidth of widths) {
      const workspace = mkdtempSync(join(tmpdir(), 'tw-shot-sizes-'));
      const client = await startServer(maxWidth, workspace);
      try {
        for (const page of pages) {
          await callTool(client, 'navigate', { url: site.origin + page.path, waitUntil: 'load', timeoutMs: 60_000 });
          for (const e of ENCODINGS) {
            const args = { format: e.format, ...(e.quality === undefined ? {} : { quality: e.quality }) };
            const base = { page: page.id, kind: page.kind, maxWidth, encoding: label(e) };
            const vp = await callTool(client, 'take_screenshot', args);
            shots.push(measure(vp.images[0]!.data, { ...base, shot: 'viewport', ms: vp.ms }));
            const full = await callTool(client, 'take_screenshot', { ...args, fullPage: true });
            if (full.images[0]) shots.push(measure(full.images[0].data, { ...base, shot: 'full-inline', ms: full.ms }));
            const file = /(\/\S+\.(?:png|jpg|webp))\b/.exec(full.text)?.[1];
            // A page that fits the budget comes back whole, inline: that image is the whole page too.
            const whole = file ? readFileSync(file) : full.images[0]!.data;
            shots.push(measure(whole, { ...base, shot: 'full-file', ms: full.ms }));
            if (values.save) {
              const ext = e.format === 'jpeg' ? 'jpg' : e.format;
              const name = `${page.id}-${maxWidth}-${label(e).replace(' ', '')}`;
              writeFileSync(join(values.save, `${name}-viewport.${ext}`), vp.images[0]!.data);
              if (full.images[0]) writeFileSync(join(values.save, `${name}-full.${ext}`), full.images[0].data);
            }
          }
          process.stderr.write(`width ${maxWidth}: ${page.id}\n`);
        }
      } finally {
        await client.close();
        rmSync(workspace, { recursive: true, force: true });
      }
    }
  } finally {
    await site.close();
  }
  const table = render(shots, pages.length);
  console.log(table);
  mkdirSync(dirname(values.out!), { recursive: true });
  writeFileSync(`${values.out}.json`, JSON.stringify({ date: new Date().toISOString(), pages: pages.map(p => p.id), shots }, null, 1) + '\n');
  writeFileSync(`${values.out}.md`, table + '\n');
}

/** The table: per shot kind, width and encoding, bytes (median, p90, max over pages), pixels, tokens and call time. */
function render(shots: Shot[], pageCount: number): string {
  const lines = [
    `Screenshot sizes over ${pageCount} pages (3 generated + the corpus), viewport 1280×720. Bytes in KB (median / p90 / max over the pages);`,
    'tokens = width × height / 750 (median / max); ms = round trip of the call (median).',
    '',
    '| shot | max width | encoding | KB median | KB p90 | KB max | px (median) | tokens median | tokens max | ms median |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const keys = new Map<string, Shot[]>();
  for (const s of shots) {
    const key = `${s.shot}|${s.maxWidth}|${s.encoding}`;
    keys.set(key, [...(keys.get(key) ?? []), s]);
  }
  for (const [key, group] of keys) {
    const [shot, maxWidth, encoding] = key.split('|');
    const bytes = group.map(s => s.bytes);
    const tokens = group.map(s => s.tokens);
    const mid = [...group].sort((a, b) => a.width * a.height - b.width * b.height)[Math.floor(group.length / 2)]!;
    lines.push(`| ${shot} | ${maxWidth} | ${encoding} | ${kb(quantile(bytes, 0.5))} | ${kb(quantile(bytes, 0.9))} | ${kb(Math.max(...bytes))} | ${mid.width}×${mid.height} | ${quantile(tokens, 0.5)} | ${Math.max(...tokens)} | ${Math.round(quantile(group.map(s => s.ms), 0.5))} |`);
  }
  return lines.join('\n');
}

await main();
