/**
 * File names for synced scripts (docs/userscripts.md, "File sync"): the slug
 * of a name is the name in NFC, lowercased, with every run of characters
 * that are not letters or digits (of any script) replaced by one hyphen,
 * hyphens trimmed at both ends; `script` when nothing is left. Combining
 * marks stay with the letter they follow (otherwise Devanagari or Thai
 * names would be shredded: "हिन्दी" stays "हिन्दी"). Slugs are capped at
 * {@link MAX_SLUG_CHARS} code points so file names stay under common
 * 255-byte limits.
 */
import type { ScriptKind } from './types.js';

/** Longest slug, in code points (a CJK code point is 3 UTF-8 bytes: 60 × 4 bytes + suffixes < 255). */
export const MAX_SLUG_CHARS = 60;

/** `价格追踪 🛒 / Price: tracker` → `价格追踪-price-tracker`; `Café helper` (NFD or NFC) → `café-helper` (NFC). */
export function scriptSlug(name: string): string {
  const slug = name.normalize('NFC').toLowerCase()
    .replace(/^\p{M}+/u, '')
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  const capped = [...slug].slice(0, MAX_SLUG_CHARS).join('').replace(/-+$/, '');
  return capped || 'script';
}

/**
 * The slugs of `names` in order, made unique by appending `-2`, `-3`, ...
 * to later duplicates (in the given order, e.g. install order). A suffixed
 * slug never takes one that another name produces on its own.
 */
export function uniqueSlugs(names: readonly string[]): string[] {
  const base = names.map(scriptSlug);
  const taken = new Set<string>();
  const natural = new Set(base);
  return base.map(slug => {
    if (!taken.has(slug)) { taken.add(slug); return slug; }
    let n = 2;
    while (taken.has(`${slug}-${n}`) || natural.has(`${slug}-${n}`)) n++;
    taken.add(`${slug}-${n}`);
    return `${slug}-${n}`;
  });
}

/** `.user.js` for userscripts, `.agent.js` for AgentScripts. */
export function scriptExtension(kind: ScriptKind): string {
  return kind === 'agentscript' ? '.agent.js' : '.user.js';
}

/**
 * File names for scripts in order: `<slug>.user.js` / `<slug>.agent.js`,
 * `-2`, `-3` on collision of the whole file name (a userscript and an
 * AgentScript of one name do not collide).
 */
export function scriptFileNames(scripts: readonly { name: string; kind: ScriptKind }[]): string[] {
  const names: string[] = [];
  for (const kind of ['userscript', 'agentscript'] as const) {
    const idx = scripts.flatMap((s, i) => (s.kind === kind ? [i] : []));
    const slugs = uniqueSlugs(idx.map(i => scripts[i]!.name));
    idx.forEach((i, k) => { names[i] = slugs[k]! + scriptExtension(kind); });
  }
  return names;
}

/** The kind a file name says (`.agent.js` → agentscript, `.user.js` → userscript), else undefined. */
export function kindFromFileName(file: string): ScriptKind | undefined {
  if (file.endsWith('.agent.js')) return 'agentscript';
  if (file.endsWith('.user.js')) return 'userscript';
  return undefined;
}
