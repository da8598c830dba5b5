/**
 * A console message's text as the browser's console shows it: the format specifiers of its first argument filled
 * from the arguments that follow (Console Standard §2.2.1 "Formatter"), the rest appended with spaces.
 * Playwright's `ConsoleMessage.text()` only joins the arguments, specifiers and all ("%s is %o a {x: 1}").
 */

/** One specifier: %s %d %i %f %o %O %c, or %% for a literal percent sign. */
const SPECIFIER = /%([sdifoOc%])/g;

/**
 * The message text from the previews of its arguments (what `JSHandle.toString()` gives for each: a string as
 * it is, a number as V8 formatted it, an object as its short preview, e.g. `{x: 1, y: Array(2)}`).
 * `%s %d %i %f %o %O` take the next argument's preview (V8 has already converted the argument of %d, %i and %f);
 * `%c` takes its argument (CSS) and shows nothing; `%%` is `%`; a specifier with no argument left stays as written.
 * Only a first argument that contains a specifier and has arguments after it is formatted; otherwise the
 * previews are joined with spaces, as before.
 * @param previews  one string per argument, in order; empty gives ''.
 */
export function formatConsoleText(previews: readonly string[]): string {
  const [first, ...rest] = previews;
  if (first === undefined) return '';
  if (!rest.length || !/%[sdifoOc]/.test(first)) return previews.join(' ');
  let next = 0;
  const formatted = first.replace(SPECIFIER, (whole, kind: string) => {
    if (kind === '%') return '%';
    if (next >= rest.length) return whole;
    const value = rest[next++]!;
    return kind === 'c' ? '' : value;
  });
  return [formatted, ...rest.slice(next)].join(' ');
}
