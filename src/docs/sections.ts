/**
 * Generated sections of the docs (`npm run docs`): the text between
 * `<!-- BEGIN GENERATED <NAME>: npm run docs -->` and
 * `<!-- END GENERATED <NAME> -->` is written from the code, and
 * test/docs.test.ts fails when a doc's section differs from what the code
 * renders now.
 */

/** The two marker comments of one generated section. */
export interface Markers {
  begin: string;
  end: string;
}

/** The markers of section `name` (upper case, e.g. `TOOLS`, `CLI VERBS`). */
export function markers(name: string): Markers {
  return { begin: `<!-- BEGIN GENERATED ${name}: npm run docs -->`, end: `<!-- END GENERATED ${name} -->` };
}

/** `body` between the markers, each on a line of its own with a blank line inside. */
export function wrap(m: Markers, body: string): string {
  return `${m.begin}\n\n${body.trim()}\n\n${m.end}`;
}

/**
 * `doc` with the text from `m.begin` to `m.end` (markers included) replaced
 * by `section` (which carries the markers), or `section` appended when
 * either marker is missing.
 */
export function replaceSection(doc: string, m: Markers, section: string): string {
  const start = doc.indexOf(m.begin);
  const stop = doc.indexOf(m.end);
  if (start < 0 || stop < 0) return `${doc.trimEnd()}\n\n${section}\n`;
  return doc.slice(0, start) + section + doc.slice(stop + m.end.length);
}
