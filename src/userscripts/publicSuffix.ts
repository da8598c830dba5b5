/**
 * The public suffix check behind `.tld` in an @include glob
 * (docs/userscripts.md, "Match patterns"): the full Public Suffix List,
 * ICANN and private sections, as the `tldts` package ships it (updated with
 * each release of the list). Private suffixes count, as in Violentmonkey
 * (whose `.tld` check is `getPublicSuffix(suffix) === suffix` over the
 * whole list): `example.tld` matches example.github.io as it matches
 * example.co.uk.
 *
 * Bundled into the userscript engine only when an enabled script needs it
 * (./injection.ts picks `userscripts-psl.js`); the smaller engine bundle
 * swaps this module for ./publicSuffixStub.ts.
 */
import { parse } from 'tldts';

/**
 * Whether `suffix` (labels joined by dots, no leading dot, punycode or
 * Unicode, any case) is a whole public suffix of the list: `co.uk`,
 * `com.au`, `github.io` and `xn--p1ai` are; `evil.co.uk` (a domain under
 * co.uk) and an unknown label such as `zzz` or `test` are not.
 */
export function isPublicSuffix(suffix: string): boolean {
  const s = suffix.toLowerCase();
  const parsed = parse(s, { allowPrivateDomains: true });
  return (parsed.isIcann === true || parsed.isPrivate === true) && parsed.publicSuffix === s;
}
