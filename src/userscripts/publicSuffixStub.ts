/**
 * Stands in for ./publicSuffix.ts in the smaller userscript engine bundle
 * (dist/page/userscripts.js), injected only while no enabled script has a
 * `.tld` glob (./injection.ts), so it is never asked; it answers false.
 */
export function isPublicSuffix(_suffix: string): boolean {
  return false;
}
