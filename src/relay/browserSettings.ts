/**
 * The launch settings of the leader's browser, as its `welcome` tells a follower (docs/relay.md, "Settings that do
 * not apply to a follower"). A follower's calls run in the leader's browser, so its own browser flags (`--headed`,
 * `--viewport`, `--browser`, `--browser-arg`, `--webmcp`) cannot apply: it warns on stderr for each one that differs
 * from the leader's, rather than ignoring them silently.
 */
import type { Config } from '../config.js';

/** What decides how the leader's browser runs. An optional member of `welcome` (older leaders send none). */
export interface BrowserSettings {
  headless: boolean;
  /** `WIDTHxHEIGHT` in CSS pixels. */
  viewport: string;
  /** The executable; null = found on PATH. */
  browser: string | null;
  browserArgs: string[];
  webmcp: string;
}

/** The settings `config` launches a browser with. */
export function browserSettings(config: Config): BrowserSettings {
  return {
    headless: config.headless,
    viewport: `${config.viewport.width}x${config.viewport.height}`,
    browser: config.browser ?? null,
    browserArgs: [...config.browserArgs],
    webmcp: config.webmcp,
  };
}

/** The flag each setting comes from, for the warning. */
const FLAGS: Record<keyof BrowserSettings, string> = {
  headless: '--headed / --headless',
  viewport: '--viewport',
  browser: '--browser',
  browserArgs: '--browser-arg',
  webmcp: '--webmcp',
};

const shown = (key: keyof BrowserSettings, value: BrowserSettings[keyof BrowserSettings]): string => {
  if (key === 'headless') return value ? 'headless' : 'headed';
  if (key === 'browserArgs') return (value as string[]).length ? (value as string[]).join(' ') : 'none';
  return value === null ? 'the one on PATH' : String(value);
};

/**
 * The warning a follower writes when its own settings differ from the leader's, or undefined when they agree.
 * @param leaderPid  for the message.
 * @returns one sentence per differing setting, with what to do.
 */
export function followerWarning(mine: BrowserSettings, leader: BrowserSettings, leaderPid: number): string | undefined {
  const differ = (Object.keys(FLAGS) as Array<keyof BrowserSettings>).filter(key => JSON.stringify(mine[key]) !== JSON.stringify(leader[key]));
  if (!differ.length) return undefined;
  const parts = differ.map(key => `${FLAGS[key]} (${shown(key, mine[key])} here, ${shown(key, leader[key])} in the leader's browser)`);
  return `This process follows the tabwright leader (pid ${leaderPid}) and works in its browser, so these settings do not apply: ${parts.join('; ')}. `
    + 'get_bridge_status shows the leader\'s settings. For a browser of your own, stop the leader first, or use --isolated (a temporary profile).';
}
