/** The relay's errors: `relay_version_mismatch` and `leader_lost` (docs/errors.md). */
import { ToolError } from '../errors.js';
import { compareVersions } from './protocol.js';

/** One side of a handshake, for error messages. */
export interface RelayParty {
  version: string;
  relayProtocol: number;
  pid: number;
  role: 'leader' | 'follower';
}

/**
 * The two processes speak different relay protocols: names both versions
 * and the process to restart (the older package; on equal packages, the
 * lower relay protocol).
 */
export function versionMismatch(a: RelayParty, b: RelayParty): ToolError {
  const order = compareVersions(a.version, b.version) || a.relayProtocol - b.relayProtocol;
  const older = order <= 0 ? a : b;
  const describe = (p: RelayParty) => `tabwright ${p.version} (relay protocol ${p.relayProtocol}, pid ${p.pid}, the ${p.role})`;
  return new ToolError(
    'relay_version_mismatch',
    `${describe(a)} and ${describe(b)} cannot share the browser: their relay protocols differ.`,
    `Restart the older process, pid ${older.pid} (tabwright ${older.version}, the ${older.role}), so that every tabwright process on this machine runs the same relay protocol.`,
  );
}

/** The leader exited while the call ran. */
export function leaderLost(pid: number): ToolError {
  return new ToolError(
    'leader_lost',
    `The tabwright process that owns the browser (pid ${pid}) went away while this call ran; its outcome is unknown.`,
    'This process takes over the browser within seconds: retry the call (for a call that changes the page, check first whether it took effect).',
  );
}
