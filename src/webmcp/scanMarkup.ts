/**
 * A small HTML tokenizer for `tabwright webmcp scan` (docs/webmcp-dev.md, "Scan"): the start tags of an HTML file
 * or of a .vue/.svelte component's markup, with their attributes and lines, and the text of its `<script>` blocks
 * with the line each starts on. It follows the HTML tokenizer's states where they matter here (comments, raw text
 * of `<script>`/`<style>`/`<textarea>`/`<title>`, quoted and unquoted attribute values) and nothing else: no tree,
 * no character references beyond `&quot;`, `&amp;`, `&lt;`, `&gt;`, `&#39;`.
 */

/** One start tag: lower-case name, attributes (name lower-cased; a bare attribute is ""), 1-based line. */
export interface StartTag {
  name: string;
  attrs: Map<string, string>;
  line: number;
  /** Offset of the `<` in the text. */
  start: number;
  /** Offset just past the `>`. */
  end: number;
}

/** A `<script>` block: its attributes, its text, and the 1-based line its text starts on. */
export interface ScriptBlock {
  attrs: Map<string, string>;
  text: string;
  line: number;
  /** Offset of the text in the whole file. */
  offset: number;
}

/** Every start tag of `text` and its script blocks (see the module comment). */
export interface Markup {
  tags: StartTag[];
  scripts: ScriptBlock[];
}

const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title']);
const ENTITIES: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', '#39': '\'', apos: '\'' };

/** Maps offsets to 1-based lines by counting newlines once. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

const decode = (value: string) => value.replace(/&(quot|amp|lt|gt|#39|apos);/g, (_, name: string) => ENTITIES[name]);

/** Tokenizes `text` (see the module comment). Never throws: malformed markup ends the tag or the scan. */
export function tokenizeMarkup(text: string): Markup {
  const lineAt = lineIndex(text);
  const tags: StartTag[] = [];
  const scripts: ScriptBlock[] = [];
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    if (text.startsWith('<!--', lt)) {
      const close = text.indexOf('-->', lt + 4);
      i = close < 0 ? text.length : close + 3;
      continue;
    }
    if (text[lt + 1] === '!' || text[lt + 1] === '?' || text[lt + 1] === '/') {
      const close = text.indexOf('>', lt + 1);
      i = close < 0 ? text.length : close + 1;
      continue;
    }
    const nameMatch = /^[A-Za-z][^\s/>]*/.exec(text.slice(lt + 1, lt + 200));
    if (!nameMatch) {
      i = lt + 1;
      continue;
    }
    const name = nameMatch[0].toLowerCase();
    let p = lt + 1 + nameMatch[0].length;
    const attrs = new Map<string, string>();
    // Attributes: name, optional = value (quoted or not), until > or />.
    while (p < text.length) {
      while (p < text.length && /[\s/]/.test(text[p])) p++;
      if (p >= text.length || text[p] === '>') break;
      const attrName = /^[^\s/>=]+/.exec(text.slice(p, p + 500))?.[0] ?? text[p];
      p += attrName.length;
      while (p < text.length && /\s/.test(text[p])) p++;
      let value = '';
      if (text[p] === '=') {
        p++;
        while (p < text.length && /\s/.test(text[p])) p++;
        const quote = text[p];
        if (quote === '"' || quote === '\'') {
          const close = text.indexOf(quote, p + 1);
          value = text.slice(p + 1, close < 0 ? text.length : close);
          p = close < 0 ? text.length : close + 1;
        } else {
          const unquoted = /^[^\s>]*/.exec(text.slice(p))?.[0] ?? '';
          value = unquoted;
          p += unquoted.length;
        }
      }
      const key = attrName.toLowerCase();
      if (!attrs.has(key)) attrs.set(key, decode(value));
    }
    const end = Math.min(p + 1, text.length);
    tags.push({ name, attrs, line: lineAt(lt), start: lt, end });
    i = end;
    if (RAW_TEXT.has(name)) {
      const closeAt = text.toLowerCase().indexOf(`</${name}`, i);
      const stop = closeAt < 0 ? text.length : closeAt;
      if (name === 'script') scripts.push({ attrs, text: text.slice(i, stop), line: lineAt(i), offset: i });
      i = stop;
    }
  }
  return { tags, scripts };
}
