/**
 * The browser's locale environment (docs/actions.md, "Files and
 * downloads": file names are
 * byte-exact even when the server's own environment has no UTF-8 locale).
 *
 * Chromium on Linux turns file paths into names through the C library's
 * multibyte conversion of its `LC_CTYPE`. Under the C/POSIX locale every
 * non-ASCII name is lost: an uploaded `café.txt` reaches the page with an
 * empty `file.name`, and a download's `filename*` falls back to "download".
 */

type Env = Record<string, string | undefined>;

/** The locale tabwright gives the browser when the server's own is not UTF-8 (glibc ≥ 2.35 and Debian have it built in). */
export const UTF8_LOCALE = 'C.UTF-8';

/** The `LC_CTYPE` a process with this environment runs under: `LC_ALL`, else `LC_CTYPE`, else `LANG`, else `C`. */
export function effectiveCtype(env: Env): string {
  return env.LC_ALL || env.LC_CTYPE || env.LANG || 'C';
}

/**
 * The environment to start the browser with: `env` unchanged when its
 * character type is already UTF-8 (or on macOS and Windows, whose file
 * names do not depend on the locale), else `env` with `LANG` and `LC_ALL`
 * set to C.UTF-8.
 */
export function browserEnv(env: Env, platform: NodeJS.Platform = process.platform): Env {
  if (platform === 'darwin' || platform === 'win32' || /utf-?8/i.test(effectiveCtype(env))) return env;
  return { ...env, LANG: UTF8_LOCALE, LC_ALL: UTF8_LOCALE };
}
