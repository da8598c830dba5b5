// The takeover's profile wait (src/relay/profileLock.ts): a SingletonLock
// naming a process that is gone is stale and removed at once; one naming a
// live process is waited for and kept when the wait runs out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { profileLockPid, waitForProfileRelease } from '../../src/relay/profileLock.js';

function profileWithLock(pid: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'tw-lock-'));
  symlinkSync(`${hostname()}-${pid}`, join(dir, 'SingletonLock'));
  symlinkSync('/nonexistent/SingletonSocket', join(dir, 'SingletonSocket'));
  writeFileSync(join(dir, 'Preferences'), '{}');
  return dir;
}

test('a lock naming a dead process is removed (with its socket link), the rest of the profile kept', async () => {
  const dead = spawnSync(process.execPath, ['-e', 'process.pid'], { encoding: 'utf8' }).pid!;
  const dir = profileWithLock(dead);
  try {
    assert.equal(profileLockPid(dir), dead);
    assert.equal(await waitForProfileRelease(dir, 0), true);
    assert.equal(lstatExists(join(dir, 'SingletonLock')), false);
    assert.equal(lstatExists(join(dir, 'SingletonSocket')), false);
    assert.equal(existsSync(join(dir, 'Preferences')), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a lock naming a live process is waited for, then left alone', async () => {
  const dir = profileWithLock(process.pid);
  try {
    assert.equal(await waitForProfileRelease(dir, 300), false);
    assert.equal(profileLockPid(dir), process.pid);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no lock, or another host\'s lock: nothing to wait for', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-lock-'));
  try {
    assert.equal(await waitForProfileRelease(dir, 0), true);
    symlinkSync(`some-other-host-${process.pid}`, join(dir, 'SingletonLock'));
    assert.equal(profileLockPid(dir), undefined);
    assert.equal(await waitForProfileRelease(dir, 0), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
