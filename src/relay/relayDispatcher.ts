/**
 * RelayDispatcher: the
 * dispatcher of a process that shares its browser profile. At start it
 * races for the relay port: the winner leads (a LocalDispatcher plus the
 * relay server), the others follow (a RelayFollower). A leader's calls go
 * straight to its LocalDispatcher: a lone process pays nothing per call.
 *
 * Takeover: when a follower's socket to the leader closes, it races for the
 * port again at once; the winner waits for the old browser to let go of the
 * profile and leads, the others follow it. Step-down: a leader greeted by a
 * newer package closes its browser, lets go of the port and rejoins behind
 * the newer process (it does not try to lead again for STEP_DOWN_GRACE_MS).
 */
import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedBrowserKey, type Config } from '../config.js';
import type { CallHooks, Dispatcher, LocalDispatcher } from '../dispatch/dispatcher.js';
import { localDispatcher } from '../dispatch/local.js';
import { callBudgetOf, withinBudget } from '../dispatch/callBudget.js';
import { checkCall } from '../consent/policy.js';
import { readScriptResource, type ResourceText } from '../userscripts/resources.js';
import { logger } from '../log.js';
import { ToolError } from '../errors.js';
import type { RelayStatus } from '../tools/context.js';
import { ToolResponse, type ToolResult } from '../tools/response.js';
import { readLeaderFile } from './leaderFile.js';
import { RelayFollower } from './follower.js';
import { bindRelayPort, RelayLeader } from './leader.js';
import { waitForProfileRelease } from './profileLock.js';
import { RELAY_PROTOCOL } from './protocol.js';

const log = logger('relay');

/** At start: how long to look for a leader behind a busy port before running alone, in ms. */
const START_JOIN_MS = 3000;
/** At start: how long a busy port may lack bridge.json (a leader that just bound writes it at once) before running alone, in ms. */
const NO_FILE_AT_START_MS = 500;
/** After losing the leader: how long to try to lead or follow before running alone, in ms. */
const TAKEOVER_JOIN_MS = 20_000;
/** A leader that stepped down leaves the port to the newer process this long, in ms. */
const STEP_DOWN_GRACE_MS = 5000;
/** How long a new leader waits for the old browser to let go of the profile, in ms. */
const PROFILE_RELEASE_MS = 15_000;

type Role =
  | { kind: 'leader'; local: LocalDispatcher; leader: RelayLeader }
  | { kind: 'standalone'; local: LocalDispatcher }
  | { kind: 'follower'; follower: RelayFollower }
  | { kind: 'refused'; error: ToolError }
  | { kind: 'joining' };

/** A dispatcher that leads, follows, or runs alone, and changes role as processes come and go. */
export class RelayDispatcher implements Dispatcher {
  private role: Role = { kind: 'joining' };
  private joining?: Promise<void>;
  private closed = false;

  private constructor(private readonly config: Config, private readonly port: number) {}

  /** Joins the relay on `port` (leading or following) and resolves once this process has a role. */
  static async start(config: Config, port: number): Promise<RelayDispatcher> {
    const dispatcher = new RelayDispatcher(config, port);
    await dispatcher.rejoin({ deadlineMs: START_JOIN_MS, takeover: false });
    return dispatcher;
  }

  async call(tool: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    for (let attempt = 0; ; attempt++) {
      const role = this.role;
      // The role rides with the call (CallHooks.relay); a follower's calls get theirs from the leader (./leader.ts).
      if (role.kind === 'leader' || role.kind === 'standalone') return role.local.call(tool, args, { ...hooks, relay: ownRelayStatus(role.kind) });
      if (role.kind === 'follower' && role.follower.open) return this.followerCall(role.follower, tool, args, hooks);
      if (this.closed) return failed(new ToolError('browser_unavailable', 'This tabwright process is shutting down.', 'Start it again.'));
      // Refused earlier (another relay protocol): try again, the other process may have been restarted.
      if (attempt > 0 && role.kind === 'refused') return failed(role.error);
      if (attempt > 1) return failed(new ToolError('browser_unavailable', 'No tabwright process owns the browser right now.', 'Retry in a few seconds.'));
      await this.rejoin({ deadlineMs: TAKEOVER_JOIN_MS, takeover: true });
    }
  }

  /**
   * A call through the leader: this process checks its own policy (the same as the leader's: the relay key holds
   * it) and counts its own callers' calls against its own budget; the leader counts them no more.
   */
  private async followerCall(follower: RelayFollower, tool: string, args: unknown, hooks: CallHooks): Promise<ToolResult> {
    try {
      checkCall(this.config.policy, tool, args);
    } catch (error) {
      return failed(error as ToolError);
    }
    const budget = callBudgetOf(this.config);
    const status = tool === 'get_bridge_status' ? budget.status(hooks.sessionKey) : undefined;
    return withinBudget(budget, tool, hooks.sessionKey, () => follower.call(tool, args, status ? { ...hooks, budget: status } : hooks), failed);
  }

  /** Script resources come from the store in this process's data dir, the same SQLite file every process on it shares. */
  async readResource(uri: string): Promise<ResourceText[] | undefined> {
    return readScriptResource(uri, this.config);
  }

  /** The LocalDispatcher while this process leads or runs alone; undefined while it follows, joins or was refused. */
  local(): LocalDispatcher | undefined {
    const role = this.role;
    return role.kind === 'leader' || role.kind === 'standalone' ? role.local : undefined;
  }

  /** An MCP session ended: its isolated context closes, where this process owns the browser. */
  async endSession(sessionKey: string): Promise<void> {
    const role = this.role;
    if (role.kind === 'leader' || role.kind === 'standalone') await role.local.endSession(sessionKey);
    else if (role.kind === 'follower') {
      callBudgetOf(this.config).endSession(sessionKey);
      role.follower.endSession(sessionKey);
    }
  }

  /** Ends this process's part: a leader disconnects its followers (they take over), closes its browser and lets go of the port. */
  async close(): Promise<void> {
    this.closed = true;
    const role = this.role;
    this.role = { kind: 'joining' };
    if (role.kind === 'leader') {
      role.leader.disconnectFollowers();
      await role.local.close().catch(error => log.warn('closing the browser failed:', error));
      await role.leader.release();
    } else if (role.kind === 'standalone') {
      await role.local.close();
    } else if (role.kind === 'follower') {
      await role.follower.close();
    }
  }

  /** Starts (or joins) the one join in progress. */
  private rejoin(opts: { deadlineMs: number; takeover: boolean; mayLeadAfter?: number }): Promise<void> {
    this.joining ??= this.join(opts).finally(() => {
      this.joining = undefined;
    });
    return this.joining;
  }

  private async join({ deadlineMs, takeover, mayLeadAfter = 0 }: { deadlineMs: number; takeover: boolean; mayLeadAfter?: number }): Promise<void> {
    this.role = { kind: 'joining' };
    const started = Date.now();
    let deadline = started + deadlineMs;
    let why = 'the relay port is held by a process that is not a tabwright leader of this config dir';
    while (!this.closed) {
      if (Date.now() >= mayLeadAfter) {
        let server: Server | undefined;
        try {
          server = await bindRelayPort(this.port);
        } catch (error) {
          this.standalone(`cannot listen on 127.0.0.1:${this.port}: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
        if (server) {
          await this.lead(server, takeover);
          return;
        }
      }
      const file = readLeaderFile(this.config.configDir);
      if (file && file.port === this.port) {
        if (file.profile !== sharedBrowserKey(this.config)) {
          this.standalone(`the leader (pid ${file.pid}) runs its browser on another profile (${file.profile})`);
          return;
        }
        const outcome = await RelayFollower.join(this.port, file.token, this.config);
        if (outcome.kind === 'joined') {
          this.follow(outcome.follower);
          return;
        }
        if (outcome.kind === 'refused' && !outcome.retry) {
          if (outcome.error.type === 'relay_version_mismatch') {
            log.error(outcome.error.message, outcome.error.hint);
            this.role = { kind: 'refused', error: outcome.error };
            return;
          }
          this.standalone(outcome.error.message);
          return;
        }
        if (outcome.kind === 'step_down') {
          log.info(`leader pid ${file.pid} steps down for this newer process`);
          // It closes its browser before it lets go of the port: wait for that however long the start allowed.
          deadline = Math.max(deadline, Date.now() + TAKEOVER_JOIN_MS);
        }
        why = outcome.kind === 'unreachable' ? outcome.reason : outcome.kind === 'refused' ? outcome.error.message : 'the leader is stepping down';
      }
      // At start, no bridge.json after a moment: the port is not a tabwright leader's of this config dir.
      if (Date.now() >= deadline || (!takeover && !file && Date.now() - started >= NO_FILE_AT_START_MS)) {
        this.standalone(why);
        return;
      }
      await sleep(100 + Math.floor(Math.random() * 100));
    }
  }

  private async lead(server: Server, takeover: boolean): Promise<void> {
    // A killed leader's Chromium exits when its CDP pipe closes; wait for it to let go of the profile.
    // Only a browser we launch holds a profile lock; the user's own browser is theirs and stays.
    if (!this.config.own) {
      const free = await waitForProfileRelease(this.config.userDataDir, takeover ? PROFILE_RELEASE_MS : 0);
      if (!free && takeover) log.warn(`the previous browser still holds ${this.config.userDataDir}`);
    }
    const local = this.localDispatcher();
    const leader = new RelayLeader(server, local, this.config.configDir, this.port, sharedBrowserKey(this.config), {
      stepDown: () => void this.stepDown(),
    });
    if (this.closed) {
      await leader.release();
      return;
    }
    this.role = { kind: 'leader', local, leader };
    log.info(`leading on 127.0.0.1:${this.port}${takeover ? ' (took over)' : ''}`);
  }

  private follow(follower: RelayFollower): void {
    this.role = { kind: 'follower', follower };
    log.info(`following the leader pid ${follower.leaderPid} (tabwright ${follower.leaderVersion})`);
    void follower.closed.then(() => {
      if (this.closed || this.role.kind !== 'follower' || this.role.follower !== follower) return;
      // The leader went away (exit, crash, SIGKILL, step-down): race for the port now, not on the next call.
      void this.rejoin({ deadlineMs: TAKEOVER_JOIN_MS, takeover: true });
    });
  }

  private standalone(why: string): void {
    log.warn(`running alone (own browser, no relay): ${why}`);
    this.role = { kind: 'standalone', local: this.localDispatcher() };
  }

  private localDispatcher(): LocalDispatcher {
    return localDispatcher(this.config);
  }

  /** A newer follower arrived: close the browser, let go of the port, follow it. */
  private stepDown(): void {
    const role = this.role;
    if (role.kind !== 'leader' || this.joining) return;
    this.role = { kind: 'joining' };
    this.joining = (async () => {
      role.leader.disconnectFollowers();
      await role.local.close().catch(error => log.warn('closing the browser failed:', error));
      await role.leader.release();
      await this.join({ deadlineMs: TAKEOVER_JOIN_MS, takeover: true, mayLeadAfter: Date.now() + STEP_DOWN_GRACE_MS });
    })().finally(() => {
      this.joining = undefined;
    });
  }
}

/** This process's place in the relay when it owns the browser. */
function ownRelayStatus(role: 'leader' | 'standalone'): RelayStatus {
  return { role, leaderPid: process.pid, relayProtocol: RELAY_PROTOCOL };
}

function failed(error: ToolError): ToolResult {
  return new ToolResponse().fail(error).build();
}
