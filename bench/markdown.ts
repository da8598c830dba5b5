/** Markdown helpers of the report (bench/report.ts, bench/transportReport.ts). Pure. */

/** A Markdown table: the head row, the separator, one line per row; `|` in cells escaped. */
export function table(head: string[], rows: string[][]): string {
  const line = (r: string[]) => `| ${r.map(c => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}
