/**
 * Which process listens on a loopback TCP port (`tabwright doctor`'s ports), read from Linux's procfs: the
 * listening socket's inode in /proc/net/tcp (proc(5), "/proc/net/tcp": hex local address, state 0A = LISTEN), then
 * the process with a `socket:[inode]` descriptor in /proc/<pid>/fd. Elsewhere, or for a process of another user
 * (its fds cannot be read), the holder is unknown.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A listening process: its pid and command line (arguments joined by spaces, at most 200 characters). */
export interface PortHolder {
  pid: number;
  command: string;
}

/** The inode of the socket listening on 127.0.0.1:`port` or 0.0.0.0:`port`, if any. */
function listeningInode(port: number): string | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of table.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    // local_address rem_address st ... inode (the 10th column)
    if (cols.length < 10 || cols[3] !== '0A') continue;
    const [addr, p] = cols[1]!.split(':');
    if (p === hexPort && (addr === '0100007F' || addr === '00000000')) return cols[9];
  }
  return undefined;
}

/**
 * The process that listens on `port`, or undefined when none is found (nothing listens, not Linux, or the
 * process is not readable by this user). Never throws.
 */
export function portHolder(port: number): PortHolder | undefined {
  const inode = listeningInode(port);
  if (!inode || inode === '0') return undefined;
  const target = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter(name => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (link !== target) continue;
      let command = '';
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      } catch {
        // gone meanwhile
      }
      return { pid: Number(pid), command: command.length > 200 ? `${command.slice(0, 199)}…` : command };
    }
  }
  return undefined;
}
