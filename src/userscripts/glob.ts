/**
 * Glob matching for `@match` paths and `@include`/`@exclude` globs
 * (docs/userscripts.md, "Match patterns") in O(pattern × URL) time. A glob
 * compiled to a backtracking RegExp (`^.*a.*a.*…b$`) takes time exponential
 * in its stars on a URL it does not match, and matching runs in the server
 * on every navigation: `*a*a*a*…*b` (30 stars) held the process for minutes.
 * This matcher fills one row of booleans per pattern token instead (the
 * dynamic-programming wildcard match; a token is a star, a `.tld` or a run of
 * literal characters), so its time is bounded by the tokens times the URL.
 *
 * Tokens: `*` is any run of characters, `.tld` (where the caller enables it)
 * is one or more `.label`s (labels without `.`, `/`, `:`) that together are a
 * public suffix, and every other character is itself.
 */

/** A token of a compiled glob: a run of literal characters, any run, or a public suffix. */
type Token = string | { kind: 'star' } | { kind: 'tld' };
const STAR = { kind: 'star' } as const;
const TLD = { kind: 'tld' } as const;

/** `.tld` in a glob, where it means a public suffix: before `/`, `:` or the end. */
export const TLD_IN_GLOB = /\.tld(?=[/:]|$)/;

export interface GlobOptions {
  /** Compare characters case-insensitively (ASCII and simple case folding by lowercasing both sides). */
  ignoreCase?: boolean;
  /** Read `.tld` before `/`, `:` or the end as a public suffix accepted by this test (its labels without the leading dot). */
  publicSuffix?: (suffix: string) => boolean;
}

export interface Glob {
  /** Whether the whole of `text` matches. */
  test(text: string): boolean;
}

const DOT = 0x2e;
const SLASH = 0x2f;
const COLON = 0x3a;

/** Compiles `pattern` (see the module doc). */
export function compileGlob(pattern: string, options: GlobOptions = {}): Glob {
  const tokens: Token[] = [];
  const pieces = options.publicSuffix ? pattern.split(new RegExp(TLD_IN_GLOB.source, 'g')) : [pattern];
  pieces.forEach((piece, i) => {
    if (i > 0) tokens.push(TLD);
    const text = options.ignoreCase ? piece.toLowerCase() : piece;
    text.split('*').forEach((literal, j) => {
      if (j > 0 && tokens[tokens.length - 1] !== STAR) tokens.push(STAR); // `**` is `*`
      if (literal) tokens.push(literal);
    });
  });
  const suffixOk = options.publicSuffix;
  return {
    test(original: string): boolean {
      const text = options.ignoreCase ? original.toLowerCase() : original;
      const n = text.length;
      // next[s]: whether tokens[t + 1 ..] match text[s ..]; filled from the last token back to the first.
      let next = new Uint8Array(n + 1);
      let row = new Uint8Array(n + 1);
      next[n] = 1;
      for (let t = tokens.length - 1; t >= 0; t--) {
        const token = tokens[t]!;
        row.fill(0);
        if (typeof token === 'string') {
          for (let s = 0; s + token.length <= n; s++) row[s] = next[s + token.length] && text.startsWith(token, s) ? 1 : 0;
        } else if (token.kind === 'star') {
          row[n] = next[n]!;
          for (let s = n - 1; s >= 0; s--) row[s] = next[s]! | row[s + 1]!;
        } else {
          for (let s = 0; s < n; s++) {
            if (text.charCodeAt(s) !== DOT) continue;
            // `(\.[^./:]+)+` from s: every end after at least one label character is a candidate.
            for (let e = s + 1; e < n || e === n; e++) {
              const c = e < n ? text.charCodeAt(e) : -1;
              const prev = text.charCodeAt(e - 1);
              if (prev !== DOT && next[e] && suffixOk!(original.slice(s + 1, e))) {
                row[s] = 1;
                break;
              }
              if (e === n || c === SLASH || c === COLON || (c === DOT && prev === DOT)) break;
            }
          }
        }
        [next, row] = [row, next];
      }
      return next[0] === 1;
    },
  };
}
