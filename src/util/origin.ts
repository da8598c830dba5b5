/** The origin of a URL (`https://example.com:8443`); `'null'` for text that is not a URL (URL Standard, "origin"). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'null';
  }
}
