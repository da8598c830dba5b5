/**
 * The latest benchmark report for the dashboard: the newest `bench/results/<date>[-n].md` of this install
 * (`npm run bench` writes it; docs/bench.md), read as its run line and its targets table (measure, tabwright's value,
 * verdict). An install without a bench folder has no report.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One row of the report's targets table. */
export interface BenchRow {
  measure: string;
  tabwright: string;
  verdict: string;
}

/** The report as the dashboard shows it. */
export interface BenchReport {
  file: string;
  /** The report's "Run …" line. */
  run: string;
  rows: BenchRow[];
}

/** `bench/results` of this install (dist/dashboard/ → the package root). */
export const RESULTS_DIR = join(dirname(dirname(dirname(fileURLToPath(import.meta.url)))), 'bench', 'results');

/** How long a report read stays cached, ms (the state is built every few seconds while a page listens). */
const CACHE_MS = 60_000;
let cached: { dir: string; at: number; report: BenchReport | undefined } | undefined;

/**
 * The newest report in `dir` by its name's date and run number (`2026-12-01-2` after `2026-12-01`), or undefined;
 * read at most once a minute.
 */
export function latestBenchReport(dir = RESULTS_DIR): BenchReport | undefined {
  if (cached?.dir === dir && Date.now() - cached.at < CACHE_MS) return cached.report;
  cached = { dir, at: Date.now(), report: readLatest(dir) };
  return cached.report;
}

function readLatest(dir: string): BenchReport | undefined {
  try {
    const key = (name: string) => {
      const [, date, n] = /^(\d{4}-\d{2}-\d{2})(?:-(\d+))?\.md$/.exec(name)!;
      return `${date}-${(n ?? '1').padStart(4, '0')}`;
    };
    const newest = readdirSync(dir).filter(n => /^\d{4}-\d{2}-\d{2}(-\d+)?\.md$/.test(n)).sort((a, b) => key(b).localeCompare(key(a)))[0];
    return newest ? parseReport(newest, readFileSync(join(dir, newest), 'utf8')) : undefined;
  } catch {
    return undefined;
  }
}

/** The run line and the first table's rows: the columns named `measure`, `tabwright` and `verdict`. */
export function parseReport(file: string, markdown: string): BenchReport {
  const lines = markdown.split('\n');
  const run = lines.find(l => l.startsWith('Run '))?.trim() ?? '';
  const cells = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map(c => c.trim().replace(/\*\*/g, ''));
  const start = lines.findIndex(l => l.startsWith('| measure |'));
  const rows: BenchRow[] = [];
  if (start >= 0) {
    const head = cells(lines[start]!);
    const [m, t, v] = ['measure', 'tabwright', 'verdict'].map(name => head.indexOf(name));
    for (const line of lines.slice(start + 2)) {
      if (!line.startsWith('|')) break;
      const row = cells(line);
      rows.push({ measure: row[m!] ?? '', tabwright: row[t!] ?? '', verdict: row[v!] ?? '' });
    }
  }
  return { file, run, rows };
}
