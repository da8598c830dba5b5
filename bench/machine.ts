/**
 * The machine a run happened on: CPU, cores, RAM, OS, Node and Chromium
 * versions, for the report.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import type { Machine } from './types.js';

function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (m) return `${m[1]}, Linux ${release()}`;
  } catch {
    // not Linux, or no os-release
  }
  return `${process.platform} ${release()}`;
}

/** `chromium --version` (stdout only; Debian's wrapper script may warn on stderr). */
export function chromiumVersion(executable: string): string {
  try {
    return execFileSync(executable, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 15000 }).trim();
  } catch (error) {
    return `unknown (${(error as Error).message.split('\n')[0]})`;
  }
}

export function machine(chromium: string): Machine {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    ramGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    os: osName(),
    node: process.version,
    chromium: chromiumVersion(chromium),
  };
}
