/**
 * Finds the Chromium-family executable for the launch connection
 * (`--browser PATH` or `TABWRIGHT_BROWSER`, else auto-detect).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ToolError } from '../../errors.js';

/** Names searched on PATH, in order. */
export const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable', 'microsoft-edge', 'brave-browser'];

const WELL_KNOWN: Partial<Record<NodeJS.Platform, string[]>> = {
  darwin: [
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    '/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge',
    '/Applications/Brave Browser.app/Contents/MacOS/Brave Browser',
  ],
  win32: [
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe',
  ],
};

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The command that installs a browser on this platform, for hints. */
export function installHint(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'brew install --cask chromium';
  if (platform === 'win32') return 'winget install Google.Chrome';
  return 'sudo apt-get install chromium   (Debian/Ubuntu; Fedora: sudo dnf install chromium)';
}

/**
 * Returns the executable path.
 * @param explicit `--browser` or `TABWRIGHT_BROWSER`: a path, or a bare name looked up on PATH; must exist when given.
 * @throws ToolError browser_unavailable naming TABWRIGHT_BROWSER and the install command.
 */
export function findBrowser(explicit: string | undefined, env: Record<string, string | undefined> = process.env): string {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const exts = process.platform === 'win32' ? ['.exe', ''] : [''];
  const onPath = (name: string) => {
    for (const dir of dirs) for (const ext of exts) if (isExecutable(join(dir, name + ext))) return join(dir, name + ext);
    return undefined;
  };
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    const found = /[\\/]/.test(explicit) ? undefined : onPath(explicit); // a bare name: look it up on PATH
    if (found) return found;
    throw new ToolError(
      'browser_unavailable',
      `The browser executable "${explicit}" (from --browser or TABWRIGHT_BROWSER) does not exist or is not executable.`,
      `Point TABWRIGHT_BROWSER at a Chromium-family browser, or install one: ${installHint()}.`,
    );
  }
  for (const name of BROWSER_NAMES) {
    const found = onPath(name);
    if (found) return found;
  }
  for (const candidate of WELL_KNOWN[process.platform] ?? []) if (isExecutable(candidate)) return candidate;
  throw new ToolError(
    'browser_unavailable',
    `No Chromium-family browser found on PATH (looked for ${BROWSER_NAMES.join(', ')}).`,
    `Install one (${installHint()}) or set TABWRIGHT_BROWSER to its executable.`,
  );
}
