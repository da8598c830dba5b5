/**
 * This process's place in the relay (issue #7), for get_bridge_status:
 * `leader` (owns the browser, serves followers), `follower` (relays to the
 * leader), or `standalone` (owns a browser no other process can share:
 * `--isolated`, or the bridge port is held by a leader on another profile
 * or by something else).
 */
import { RELAY_PROTOCOL } from './protocol.js';

export type RelayRole = 'leader' | 'follower' | 'standalone';

export interface RelayState {
  role: RelayRole;
  /** Pid of the process that owns the browser (this one unless following). */
  leaderPid: number;
  relayProtocol: number;
}

let state: RelayState = { role: 'standalone', leaderPid: process.pid, relayProtocol: RELAY_PROTOCOL };

/** The current state (a copy). */
export function relayState(): RelayState {
  return { ...state };
}

/** Records a role change (src/relay/bridge.ts). */
export function setRelayState(role: RelayRole, leaderPid: number): void {
  state = { role, leaderPid, relayProtocol: RELAY_PROTOCOL };
}
