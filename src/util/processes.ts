/** Questions about other processes of this machine. */

/**
 * Whether a process with this pid exists: signal 0 (kill(2)), where EPERM counts as alive (it exists, owned by
 * someone else). False for a pid that is not a positive integer.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
