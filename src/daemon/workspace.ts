/**
 * The caller's workspace: an absolute folder named by
 * `x-tabwright-workspace` on every tool call, percent-decoded once when
 * `x-tabwright-workspace-encoding: uri` says so. Files a tool writes go
 * under it, never under another caller's. A tracker bounds how many
 * distinct workspaces one daemon serves within 15 minutes.
 */
import { statSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import { DaemonError } from './httpErrors.js';

const HINT = 'Send the absolute path of your working folder in x-tabwright-workspace; for a path with non-ASCII characters send encodeURIComponent(path) and x-tabwright-workspace-encoding: uri.';

function bad(message: string): DaemonError {
  return new DaemonError(400, 'bad_workspace', message, HINT);
}

/**
 * The workspace a request names, normalized (`resolve`), or undefined when
 * it names none and `required` is false.
 * @throws DaemonError 400 bad_workspace: missing (when required), repeated, an unknown encoding, not
 *   decodable, raw non-ASCII or control characters, relative, or not an existing directory.
 */
export function requestWorkspace(req: IncomingMessage, required: boolean): string | undefined {
  const raw = req.headers['x-tabwright-workspace'];
  const encoding = req.headers['x-tabwright-workspace-encoding'];
  if (raw === undefined || raw === '') {
    if (required) throw bad('The request carries no x-tabwright-workspace header.');
    return undefined;
  }
  if (Array.isArray(raw)) throw bad('x-tabwright-workspace is given more than once.');
  let path = raw;
  if (encoding !== undefined) {
    if (typeof encoding !== 'string' || encoding.toLowerCase() !== 'uri') throw bad(`x-tabwright-workspace-encoding "${String(encoding).slice(0, 40)}" is unknown (only "uri" is).`);
    try {
      path = decodeURIComponent(raw);
    } catch {
      throw bad('x-tabwright-workspace is not valid percent-encoded UTF-8.');
    }
  } else if (/[^\x20-\x7e]/.test(raw)) {
    // Node reads header bytes as latin1: raw UTF-8 would arrive mangled.
    throw bad('x-tabwright-workspace holds non-ASCII characters without x-tabwright-workspace-encoding: uri.');
  }
  if (/[\u0000-\u001f\u007f]/.test(path)) throw bad('x-tabwright-workspace holds control characters.');
  if (!isAbsolute(path)) throw bad(`Workspace "${path.slice(0, 200)}" is not an absolute path.`);
  const dir = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // missing
  }
  if (!isDir) throw bad(`Workspace "${dir.slice(0, 200)}" is not an existing directory.`);
  return dir;
}

/** Distinct workspaces seen within a sliding window (256 in 15 minutes). */
export class WorkspaceTracker {
  private readonly lastSeen = new Map<string, number>();

  constructor(private readonly max: number, private readonly windowMs: number) {}

  /**
   * Records a request from `workspace`.
   * @throws DaemonError 429 too_many_workspaces when it is new and `max` others were active within the window.
   */
  admit(workspace: string, now = Date.now()): void {
    this.prune(now);
    if (!this.lastSeen.has(workspace) && this.lastSeen.size >= this.max) {
      throw new DaemonError(429, 'too_many_workspaces', `${this.max} workspaces were active in the last ${Math.round(this.windowMs / 60_000)} minutes; this daemon takes no new one now.`, 'Retry later, or use one of the workspaces already active.');
    }
    this.lastSeen.delete(workspace); // re-insert: the map stays ordered by last use
    this.lastSeen.set(workspace, now);
  }

  /** Workspaces active within the window. */
  count(now = Date.now()): number {
    this.prune(now);
    return this.lastSeen.size;
  }

  private prune(now: number): void {
    for (const [ws, at] of this.lastSeen) {
      if (now - at < this.windowMs) break; // ordered by last use: the rest are newer
      this.lastSeen.delete(ws);
    }
  }
}
