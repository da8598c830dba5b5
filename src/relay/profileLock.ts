/**
 * Waiting for a dead leader's browser to let go of the profile when a
 * follower takes over (docs/relay.md). Chromium marks a profile in use with a `SingletonLock`
 * symlink whose target is `<hostname>-<pid>`. When the leader is killed
 * (even SIGKILL) its Chromium exits because its CDP pipe closes, but that
 * takes a moment; a new leader that launched at once would find the profile
 * locked. A lock naming a process that is gone is stale and removed.
 */
import { readlinkSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../util/wait.js';
import { processAlive } from '../util/processes.js';

/** Chromium's profile lock files. */
const LOCK_FILES = ['SingletonLock', 'SingletonSocket', 'SingletonCookie'];

/** The pid in the profile's SingletonLock when it names this host; undefined when there is no lock (or another host's). */
export function profileLockPid(userDataDir: string): number | undefined {
  let target: string;
  try {
    target = readlinkSync(join(userDataDir, 'SingletonLock'));
  } catch {
    return undefined;
  }
  const dash = target.lastIndexOf('-');
  if (dash < 0 || target.slice(0, dash) !== hostname()) return undefined;
  const pid = Number(target.slice(dash + 1));
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Resolves once no live process holds `userDataDir`'s lock: waits up to
 * `timeoutMs` (ms) for the holder to exit, then removes a stale lock.
 * @returns true when the profile is free; false when the holder still runs after the wait (the launch then reports the profile in use).
 */
export async function waitForProfileRelease(userDataDir: string, timeoutMs: number): Promise<boolean> {
  const free = await pollUntil(() => {
    const pid = profileLockPid(userDataDir);
    if (pid === undefined) return true;
    if (processAlive(pid)) return false;
    for (const name of LOCK_FILES) rmSync(join(userDataDir, name), { force: true });
    return true;
  }, { ms: timeoutMs, intervalMs: 100 });
  return free === true;
}
