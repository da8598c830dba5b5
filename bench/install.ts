/**
 * Installs the peer servers at their exact versions on first use, each into
 * its own folder bench/cache/<id> (`npm install --prefix bench/cache/<id>
 * --no-save pkg@version`), outside the project's dependencies and with
 * browser downloads switched off. One folder per peer because `--no-save`
 * without a package.json prunes whatever else the prefix holds.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { installedVersion, type ServerSpec } from './servers.js';

export const NO_BROWSER_DOWNLOADS = {
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
  PUPPETEER_SKIP_DOWNLOAD: '1',
  PUPPETEER_SKIP_CHROME_DOWNLOAD: '1',
};

/** Runs a command; resolves with its exit code and the tail of its output. */
function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise(resolve => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (d: Buffer) => {
      output = (output + d.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', e => {
      clearTimeout(timer);
      resolve({ code: null, output: String(e) });
    });
    child.on('close', code => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/**
 * Makes sure the peer is installed at its version. Resolves to undefined when
 * it is (already or now), else to the reason it is not.
 */
export async function ensurePeer(spec: ServerSpec, root: string, cacheDir: string, log: (line: string) => void): Promise<string | undefined> {
  if (!spec.pkg) return undefined;
  if (installedVersion(spec, root, cacheDir) === spec.pkg.version) return undefined;
  const prefix = join(cacheDir, spec.id);
  mkdirSync(prefix, { recursive: true });
  const pkg = `${spec.pkg.name}@${spec.pkg.version}`;
  log(`installing ${pkg} into ${prefix} (browser downloads off)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { code, output } = await run(npm, ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', pkg], { ...process.env, ...NO_BROWSER_DOWNLOADS }, 300_000);
  if (code !== 0) return `npm install ${pkg} failed (exit ${code}): ${output.trim().split('\n').slice(-5).join(' | ')}`;
  const got = installedVersion(spec, root, cacheDir);
  return got === spec.pkg.version ? undefined : `npm install ${pkg} left version ${got ?? 'none'}`;
}
