/**
 * The headline chart, as a hand-written SVG string: one bar per measure
 * showing tabwright ÷ the better peer on a log scale (left of 1× is
 * better; coverage, where more is better, is drawn inverted), with the
 * target ratio marked. Green: target met;
 * amber: ahead of the better peer but short of the target; red: behind it.
 */
import { verdict, type Headline } from './headline.js';

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function fmtRatio(r: number): string {
  return r >= 10 ? `${r.toFixed(0)}×` : r >= 1 ? `${r.toFixed(2)}×` : `${r.toFixed(r < 0.1 ? 3 : 2)}×`;
}

/** One bar: lower is better; higher-is-better measures (coverage) are drawn inverted (better peer ÷ tabwright). */
interface Bar {
  label: string;
  ratio: number;
  targetRatio?: number;
  met: boolean;
}

function toBar(h: Headline): Bar | undefined {
  const v = verdict(h);
  const tw = h.values.tabwright?.[h.pick];
  if (v.ratio === undefined || !Number.isFinite(v.ratio) || v.ratio <= 0 || tw === undefined) return undefined;
  if (h.target.better === 'lower') return { label: h.target.label, ratio: v.ratio, targetRatio: v.targetRatio, met: v.status === 'met' };
  const best = tw / v.ratio;
  return { label: `${h.target.id.startsWith('coverage') ? 'coverage, worst page' : h.target.label} (inverted)`, ratio: 1 / v.ratio, targetRatio: v.goal ? best / v.goal : undefined, met: v.status === 'met' };
}

/** Renders the chart; rows without a ratio (no peer measured) are left out. */
export function renderSvg(rows: readonly Headline[], title: string): string {
  const bars = rows.map(toBar).filter((b): b is Bar => b !== undefined);
  const W = 900;
  const left = 300;
  const right = 190;
  const top = 56;
  const rowH = 30;
  const H = top + Math.max(1, bars.length) * rowH + 64;
  const all = bars.flatMap(b => [b.ratio, b.targetRatio ?? 1]).concat(1);
  const lo = Math.log10(Math.min(...all) / 1.5);
  const hi = Math.log10(Math.max(...all) * 1.5);
  const x = (r: number) => left + ((Math.log10(r) - lo) / (hi - lo)) * (W - left - right);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif" font-size="13">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    `<text x="16" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`,
    `<text x="16" y="42" fill="#555">tabwright ÷ better peer, log scale (left of 1× = tabwright ahead). Tick: the issue's target ratio.</text>`,
  ];
  for (const tick of [0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30]) {
    if (Math.log10(tick) < lo || Math.log10(tick) > hi) continue;
    const tx = x(tick).toFixed(1);
    out.push(`<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${H - 54}" stroke="${tick === 1 ? '#333' : '#ddd'}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`);
    out.push(`<text x="${tx}" y="${H - 38}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  bars.forEach((b, i) => {
    const y = top + i * rowH;
    const x1 = x(Math.min(1, b.ratio));
    const x2 = x(Math.max(1, b.ratio));
    const colour = b.met ? '#2e7d32' : b.ratio < 1 ? '#f9a825' : '#c62828';
    out.push(`<text x="${left - 10}" y="${y + 19}" text-anchor="end">${esc(b.label)}</text>`);
    out.push(`<rect x="${x1.toFixed(1)}" y="${y + 6}" width="${Math.max(1, x2 - x1).toFixed(1)}" height="${rowH - 12}" fill="${colour}"/>`);
    if (b.targetRatio !== undefined) {
      const tx = x(b.targetRatio).toFixed(1);
      out.push(`<line x1="${tx}" y1="${y + 2}" x2="${tx}" y2="${y + rowH - 2}" stroke="#000" stroke-width="2"/>`);
    }
    const label = `${fmtRatio(b.ratio)}${b.targetRatio !== undefined ? ` (target ${fmtRatio(b.targetRatio)})` : ''}`;
    out.push(`<text x="${W - right + 8}" y="${y + 19}">${esc(label)}</text>`);
  });
  const legend: Array<[string, string]> = [['#2e7d32', 'target met'], ['#f9a825', 'ahead of the better peer, target missed'], ['#c62828', 'behind the better peer']];
  let lx = left;
  for (const [fill, text] of legend) {
    out.push(`<rect x="${lx}" y="${H - 14}" width="10" height="10" fill="${fill}"/><text x="${lx + 14}" y="${H - 5}" fill="#555">${esc(text)}</text>`);
    lx += 30 + text.length * 6.5;
  }
  if (!bars.length) out.push(`<text x="16" y="${top + 20}">No ratios: no peer was measured.</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
