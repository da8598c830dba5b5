/**
 * The handbooks agents read before writing scripts (docs/userscripts.md, "Resources":
 * `tabwright://conventions`, `tabwright://userscript-conventions`,
 * `tabwright://agentscript-conventions`). The text lives in
 * src/userscripts/handbooks/*.md; scripts/build.mjs copies those files to
 * dist/userscripts/handbooks/, so the same relative path works from src
 * (tsx) and from dist (a packed install). Read on first use and cached.
 * test/userscripts/handbooks.test.ts validates every example script in them.
 */
import { readFileSync } from 'node:fs';

/** The handbook names, which are also the resource URI paths (`tabwright://<name>`). */
export const HANDBOOKS = ['conventions', 'userscript-conventions', 'agentscript-conventions'] as const;

export type HandbookName = typeof HANDBOOKS[number];

const cache = new Map<HandbookName, string>();

/** The markdown text of a handbook (UTF-8). Throws ENOENT only when the package is broken (the .md files were not shipped). */
export function handbook(name: HandbookName): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./handbooks/${name}.md`, import.meta.url), 'utf8');
    cache.set(name, text);
  }
  return text;
}
