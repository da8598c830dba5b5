/**
 * The save pipeline (docs/userscripts.md, "Store and saves"). One save = one operation (`operationId`, a
 * uuid) through four stages:
 *
 * 1. `validate`: validateScript (syntax, metadata, match patterns, ...);
 *    errors reject the save (`script_rejected` with the diagnostics).
 * 2. `normalize`: kind, NFC name, identity (namespace + NFC name), codeHash;
 *    an early look at conflicts (checked again at the commit).
 * 3. `persist`: one SQLite transaction (store.commit) that checks the
 *    expected hash and the identity again and writes the code with its
 *    `committed` receipt. The cancellation signal and the deadline are
 *    checked right before BEGIN and never after COMMIT.
 * 4. `deploy`: store listeners are notified (injection re-reads).
 *
 * The whole save is bounded (`deadlineMs`, 90 s). Cancelled or out of time
 * before `persist` means nothing is written, ever. Saves of one script run
 * one after another (a per-script promise chain). Every save first records
 * a durable `pending` receipt, so after a crash a query answers
 * `not_committed` for it (the commit would have replaced it atomically).
 * Recent operations (stages, times) stay in memory for 15 minutes, 128 at
 * most.
 */
import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { logger } from '../log.js';
import { diskFull, ToolError } from '../errors.js';
import { parseMetadata, scriptIdentity } from './metadata.js';
import { formatBytes, isRemoteUrl, requireText, sha256Of, type RemoteBody } from './remoteFetch.js';
import { decodeDataUrl, RESOURCE_MAX_BYTES, RESOURCES_TOTAL_MAX_BYTES, resourceMime } from './resourceData.js';
import { CommitConflict, codeHashOf, newScriptId, type ScriptStore } from './store.js';
import type { Diagnostic, ResourceDeclaration, ScriptAuthor, ScriptMetadata, StoredResource, StoredScript } from './types.js';
import { MAX_SCRIPT_BYTES, validateScript } from './validate.js';
import { decodeScriptBytes } from './workspacePaths.js';

const log = logger('saves');

/** The stages of a save, in order. */
export const SAVE_STAGES = ['validate', 'normalize', 'persist', 'deploy'] as const;
export type SaveStage = (typeof SAVE_STAGES)[number];

/** How long finished operations stay in memory, in ms (15 minutes). */
export const OPERATION_RETENTION_MS = 15 * 60_000;
/** How many operations stay in memory at most. */
export const OPERATION_LIMIT = 128;

/** How long one stage took. `ms` is wall time. */
export interface StageTiming {
  stage: SaveStage;
  ms: number;
}

/** An operation as memory keeps it. `status` running until it commits or fails. */
export interface OperationRecord {
  operationId: string;
  scriptId: string;
  status: 'running' | 'committed' | 'not_committed';
  stages: StageTiming[];
  codeHash: string;
  startedAt: number;
  endedAt?: number;
  error?: { type: string; message: string };
}

/** One save's input. `code` is the exact source (BOM, CRLF kept). */
export interface SaveRequest {
  code: string;
  /** Update this script; absent: create one. */
  scriptId?: string;
  /** Reject with `conflict` unless the stored code has this hash (updates, in place ones too). */
  expectedCodeHash?: string;
  /**
   * Without `scriptId`: a stored script with the same `@name` and `@namespace` is updated in place, as
   * Tampermonkey does when an edited copy is installed, instead of a `conflict` (docs/userscripts.md, "Store and saves").
   * Only a script of the same author, or any script when a human saves: an agent's save never replaces a
   * human's script this way (it still gets the conflict, and may update it by scriptId).
   */
  replaceSameIdentity?: boolean;
  author: ScriptAuthor;
  /** The caller's cancellation. */
  signal: AbortSignal;
  /**
   * Reads the bytes of a local `@require` or `@resource` (a path relative to the script's file, or to the workspace
   * for inline code), at most `maxBytes`; throws a ToolError when it cannot (outside the roots, missing, larger).
   * Absent: local values are rejected. A library read is decoded as UTF-8 (without a BOM) and kept as
   * `metadata.requireCode`; a resource kept as bytes. `data:` @require URLs are left to injection.
   */
  readLocal?(url: string, maxBytes: number): Uint8Array;
  /**
   * Fetches a remote `@require` or `@resource` (http(s); ./remoteFetch.ts fetchRemote under the server's host rules).
   * Absent: remote values are rejected. What the script already holds from an earlier save is kept as it was
   * pinned, without a fetch, unless `refetch`.
   */
  fetchRemote?(url: string, signal: AbortSignal): Promise<RemoteBody>;
  /** Fetch every remote `@require` and `@resource` again instead of keeping the pinned copies. */
  refetch?: boolean;
  /** Reports each stage as it starts (MCP progress). */
  progress?(done: number, total: number, message: string): Promise<void> | void;
}

/** A successful save. `warnings` are the validator's non-blocking diagnostics. */
export interface SaveResult {
  operationId: string;
  created: boolean;
  /** The stored code's hash before an update in place of a same-identity script (`replaceSameIdentity`). */
  replacedCodeHash?: string;
  script: StoredScript;
  stages: StageTiming[];
  warnings: Diagnostic[];
}

/**
 * What get_bridge_status says about a save: `committed` (a
 * receipt exists; `matchesCurrentCode` says whether that version is still
 * the stored one), `not_committed` (a known attempt that has not written;
 * `running` while it may still), or `unknown` (no receipt retained).
 */
export interface SaveStatus {
  operationId: string | null;
  scriptId: string | null;
  status: 'committed' | 'not_committed' | 'unknown';
  running?: boolean;
  matchesCurrentCode?: boolean;
  codeHash?: string | null;
  stages?: StageTiming[];
  error?: { type: string; message: string };
  time?: number;
}

export interface SavesOptions {
  /** The bound of a whole save, in ms. */
  deadlineMs: number;
  /** Test only (`TABWRIGHT_TEST_PAUSE_SAVE_AT`): write a marker to stderr and block forever at the start of this stage. */
  pauseAt?: string;
}

/** Runs saves against one store; keeps the recent operations. */
export class Saves {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly operations = new Map<string, OperationRecord>();

  constructor(readonly store: ScriptStore, readonly options: SavesOptions) {}

  /**
   * Saves a script (export_script).
   * @throws ToolError script_rejected (validation errors; `details.diagnostics`),
   *   script_not_found (update of an unknown ID), conflict (hash or identity;
   *   `details` name both hashes or the other script), cancelled, timeout
   *   (the deadline; nothing written unless the error says committed).
   */
  async save(request: SaveRequest): Promise<SaveResult> {
    const sameIdentity = request.scriptId === undefined && request.replaceSameIdentity ? this.sameIdentity(request) : undefined;
    const req = sameIdentity ? { ...request, scriptId: sameIdentity.id } : request;
    const operationId = randomUUID();
    const scriptId = req.scriptId ?? newScriptId();
    const codeHash = codeHashOf(req.code);
    const record: OperationRecord = { operationId, scriptId, status: 'running', stages: [], codeHash, startedAt: Date.now() };
    this.remember(record);
    const deadline = AbortSignal.timeout(this.options.deadlineMs);
    const signal = AbortSignal.any([req.signal, deadline]);
    // The IDs travel with the error, so the caller can ask get_bridge_status about them.
    const ids = { operationId, ...(req.scriptId ? { scriptId: req.scriptId } : {}) };
    const stopped = () => deadline.aborted
      ? new ToolError('timeout', `The save did not finish within ${this.options.deadlineMs} ms; nothing was written (operation ${operationId}).`, `get_bridge_status {operationId: "${operationId}"} confirms; retry the save.`, ids)
      : new ToolError('cancelled', `The save was cancelled; nothing was written (operation ${operationId}).`, 'Send it again if it is still wanted.', ids);
    let committed = false;
    try {
      this.store.putReceipt({ operationId, scriptId, status: 'pending', codeHash, time: record.startedAt });
      const run = async (): Promise<SaveResult> => {
        const result = await this.run(req, record, signal, stopped, () => {
          committed = true;
        });
        return result;
      };
      // One save of a script at a time: wait for the previous one (or the signal).
      const key = req.scriptId ?? `new:${operationId}`;
      const previous = (this.chains.get(key) ?? Promise.resolve()).catch(() => undefined);
      const mine = turn(previous, signal, stopped).then(run);
      // The next save waits for this one and for the one before it (this one may stop waiting early).
      const tail = previous.then(() => mine.catch(() => undefined));
      this.chains.set(key, tail);
      void tail.then(() => {
        if (this.chains.get(key) === tail) this.chains.delete(key);
      });
      const result = await mine;
      record.status = 'committed';
      record.endedAt = Date.now();
      return sameIdentity ? { ...result, replacedCodeHash: sameIdentity.codeHash } : result;
    } catch (error) {
      const toolError = error instanceof ToolError ? error : signal.aborted ? stopped() : error;
      record.endedAt = Date.now();
      if (committed) {
        record.status = 'committed';
      } else {
        record.status = 'not_committed';
        try {
          this.store.abandonReceipt(operationId, scriptId, codeHash);
        } catch (storeError) {
          log.warn('recording a failed save failed:', storeError);
        }
      }
      if (toolError instanceof ToolError) record.error = { type: toolError.type, message: toolError.message };
      throw toolError;
    }
  }

  /** The stored script a save without scriptId replaces in place (SaveRequest.replaceSameIdentity), if any. */
  private sameIdentity(req: SaveRequest): StoredScript | undefined {
    const { metadata } = parseMetadata(req.code);
    if (!metadata) return undefined; // validation reports it
    const other = this.store.byIdentity(scriptIdentity(metadata));
    return other && (other.author === req.author || req.author === 'human') ? other : undefined;
  }

  private async run(req: SaveRequest, record: OperationRecord, signal: AbortSignal, stopped: () => ToolError, onCommit: () => void): Promise<SaveResult> {
    const { operationId, scriptId } = record;
    const stage = async <T>(name: SaveStage, body: () => T | Promise<T>, checkSignal = true): Promise<T> => {
      const index = SAVE_STAGES.indexOf(name);
      await this.pauseForTest(name, operationId, scriptId, signal);
      if (checkSignal && signal.aborted) throw stopped();
      await req.progress?.(index, SAVE_STAGES.length, name);
      const started = performance.now();
      try {
        return await body();
      } finally {
        record.stages.push({ stage: name, ms: Math.round((performance.now() - started) * 100) / 100 });
      }
    };

    const validation = await stage('validate', () => validateScript(req.code));
    const errors = validation.diagnostics.filter(d => d.severity === 'error');
    if (!validation.ok || !validation.metadata || errors.length) {
      const shown = errors.slice(0, 5).map(d => `${d.line}:${d.column} ${d.code}: ${d.message}`).join('; ');
      throw new ToolError(
        'script_rejected',
        `The script has ${errors.length} error${errors.length === 1 ? '' : 's'}: ${shown}${errors.length > 5 ? '; ...' : ''}`,
        'Fix the diagnostics returned with this error (line and column of each) and save again; the conventions handbook (MCP resource tabwright://conventions, or docs/userscripts.md) explains the format.',
        { diagnostics: validation.diagnostics, operationId },
      );
    }
    const metadata = validation.metadata;
    const warnings = validation.diagnostics.filter(d => d.severity === 'warning');

    const write = await stage('normalize', async () => {
      const identity = scriptIdentity(metadata);
      const existing = req.scriptId ? this.store.get(req.scriptId) : undefined;
      if (req.scriptId && !existing) throw scriptNotFound(req.scriptId);
      if (existing && req.expectedCodeHash !== undefined && req.expectedCodeHash !== existing.codeHash) {
        throw hashConflict(scriptId, req.expectedCodeHash, existing.codeHash, operationId);
      }
      const other = this.store.byIdentity(identity);
      if (other && other.id !== scriptId) throw identityConflict(other, operationId);
      // Local @require files are read now and remote ones fetched (or kept as pinned by an earlier save), all kept in
      // the metadata (`requireCode`): injection never reads files or goes to the network.
      // Resources likewise, as bytes in the store's script_resources (written by the same commit).
      const pinned = existing?.metadata.requireCode ?? this.store.get(scriptId)?.metadata.requireCode ?? [];
      const requireCode = await resolveRequires(metadata.require, req, operationId, pinned, signal);
      const resources = await resolveResources(metadata.resource, req, operationId, this.store.resources(scriptId), signal);
      const stored: ScriptMetadata = requireCode.length ? { ...metadata, requireCode } : metadata;
      return { id: scriptId, kind: metadata.kind, name: metadata.name.normalize('NFC'), namespace: metadata.namespace.normalize('NFC'), identity, code: req.code, metadata: stored, author: req.author, resources };
    });

    const script = await stage('persist', () => {
      try {
        return this.store.commit(write, { create: !req.scriptId, hash: req.expectedCodeHash }, operationId, () => {
          // The last moment a save may stop: after this, BEGIN ... COMMIT runs to the end.
          if (signal.aborted) throw stopped();
        }, this.options.pauseAt === 'commit' ? () => blockForTest('commit', operationId, scriptId) : undefined);
      } catch (error) {
        // SQLITE_FULL rolls the transaction back (sqlite.org/rescode.html#full): the old version stays whole.
        const full = diskFull(error, 'the script store (scripts.db in the data dir)');
        if (full) throw full;
        if (!(error instanceof CommitConflict)) throw error;
        if (error.reason === 'missing') throw scriptNotFound(scriptId);
        if (error.reason === 'identity') throw identityConflict(this.store.get(error.otherId!)!, operationId);
        throw hashConflict(scriptId, req.expectedCodeHash ?? null, error.currentHash ?? '', operationId);
      }
    }, false);
    onCommit();
    record.status = 'committed';

    await stage('deploy', () => this.store.notify(), false);
    await req.progress?.(SAVE_STAGES.length, SAVE_STAGES.length, 'done');
    return { operationId, created: !req.scriptId, script, stages: [...record.stages], warnings };
  }

  /** Test only: at the start of `stage` (TABWRIGHT_TEST_PAUSE_SAVE_AT), print a marker to stderr and never go on. */
  private async pauseForTest(stage: SaveStage, operationId: string, scriptId: string, signal: AbortSignal): Promise<void> {
    if (this.options.pauseAt !== stage) return;
    process.stderr.write(`tabwright-test: save paused at ${stage} operation ${operationId} script ${scriptId}\n`);
    if (signal.aborted) return;
    await new Promise<void>(resolve => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  private remember(record: OperationRecord): void {
    const now = Date.now();
    for (const [id, op] of this.operations) {
      if (op.status !== 'running' && now - (op.endedAt ?? op.startedAt) > OPERATION_RETENTION_MS) this.operations.delete(id);
    }
    this.operations.set(record.operationId, record);
    while (this.operations.size > OPERATION_LIMIT) {
      const oldest = [...this.operations.values()].find(op => op.status !== 'running') ?? this.operations.values().next().value!;
      this.operations.delete(oldest.operationId);
    }
  }

  /**
   * What is known about a save: by operationId (memory first, then the
   * durable receipt), else the latest receipt of scriptId.
   */
  status(query: { scriptId?: string; operationId?: string }): SaveStatus {
    const op = query.operationId ? this.operations.get(query.operationId) : undefined;
    const fresh = op && Date.now() - (op.endedAt ?? op.startedAt) <= OPERATION_RETENTION_MS ? op : op?.status === 'running' ? op : undefined;
    const receipt = query.operationId ? this.store.receipt(query.operationId) : query.scriptId ? this.store.latestReceipt(query.scriptId) : undefined;
    const scriptId = fresh?.scriptId ?? receipt?.scriptId ?? query.scriptId ?? null;
    if (query.scriptId && scriptId !== query.scriptId) {
      return { operationId: query.operationId ?? null, scriptId: query.scriptId, status: 'unknown' };
    }
    const operationId = fresh?.operationId ?? receipt?.operationId ?? query.operationId ?? null;
    const current = scriptId ? this.store.get(scriptId) : undefined;
    const stages = fresh ? [...fresh.stages] : undefined;
    if (receipt?.status === 'committed' || fresh?.status === 'committed') {
      const codeHash = receipt?.codeHash ?? fresh?.codeHash ?? null;
      return { operationId, scriptId, status: 'committed', matchesCurrentCode: current !== undefined && current.codeHash === codeHash, codeHash, stages, time: receipt?.time };
    }
    if (fresh) {
      return { operationId, scriptId, status: 'not_committed', running: fresh.status === 'running', codeHash: fresh.codeHash, stages, error: fresh.error };
    }
    // A pending receipt with no operation in memory: the process that ran the save ended before its commit.
    if (receipt) return { operationId, scriptId, status: 'not_committed', running: false, codeHash: receipt.codeHash, time: receipt.time };
    return { operationId, scriptId, status: 'unknown' };
  }
}

/**
 * Test only (`TABWRIGHT_TEST_PAUSE_SAVE_AT=commit`): inside the persist
 * transaction, after its writes and before COMMIT, print a marker and block
 * the thread until the process is killed.
 */
function blockForTest(stage: string, operationId: string, scriptId: string): void {
  writeSync(2, `tabwright-test: save paused at ${stage} operation ${operationId} script ${scriptId}\n`);
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}

/** Resolves when `previous` settles (this save's turn); rejects with `stopped()` if the signal fires first. */
function turn(previous: Promise<unknown>, signal: AbortSignal, stopped: () => ToolError): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(stopped());
    const onAbort = () => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    void previous.then(() => {
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) reject(stopped());
      else resolve();
    });
  });
}

/**
 * The code of each `@require`: a local one read through `req.readLocal`, a remote one taken from `pinned` (what
 * the script held before this save) unless `req.refetch`, else fetched through `req.fetchRemote`.
 * @throws ToolError script_rejected with a `require_unreadable` diagnostic on the @require line.
 */
async function resolveRequires(urls: readonly string[], req: SaveRequest, operationId: string, pinned: NonNullable<ScriptMetadata['requireCode']>, signal: AbortSignal): Promise<NonNullable<ScriptMetadata['requireCode']>> {
  const out: NonNullable<ScriptMetadata['requireCode']> = [];
  for (const url of urls) {
    if (/^data:/i.test(url)) continue;
    try {
      if (isRemoteUrl(url)) {
        const kept = req.refetch ? undefined : pinned.find(r => r.url === url && r.sha256);
        if (kept) out.push(kept);
        else if (!req.fetchRemote) throw new Error('remote libraries cannot be fetched for this save');
        else {
          const { bytes } = await req.fetchRemote(url, signal);
          out.push({ url, code: requireText(bytes, url), sha256: sha256Of(bytes) });
        }
        continue;
      }
      if (!req.readLocal) throw new Error('local files cannot be read for this save');
      // A BOM would land in the middle of the injected code: dropped.
      out.push({ url, code: decodeScriptBytes(req.readLocal(url, MAX_SCRIPT_BYTES), url).replace(/^\uFEFF/, '') });
    } catch (error) {
      if (signal.aborted) throw error; // the save's own cancellation or deadline, reported as such by its caller
      throw unreadableAt(req.code, 'require', url, error, operationId,
        'A local @require is a path relative to the script file (or the workspace for inline code), inside the workspace; a remote one an http(s) URL the server can fetch (at most 2 MiB of UTF-8, within the policy\'s host rules); or inline it as a data: URL.');
    }
  }
  return out;
}

/**
 * The data of each `@resource`, in header order: a remote one taken from `pinned` (what the script held before this
 * save, same name and URL) unless `req.refetch`, else fetched through `req.fetchRemote`; a `data:` URL decoded; a
 * local path read through `req.readLocal`. Each at most RESOURCE_MAX_BYTES, all together RESOURCES_TOTAL_MAX_BYTES.
 * @throws ToolError script_rejected with a `resource_unreadable` diagnostic on the @resource line.
 */
async function resolveResources(declared: readonly ResourceDeclaration[], req: SaveRequest, operationId: string, pinned: readonly StoredResource[], signal: AbortSignal): Promise<StoredResource[]> {
  const out: StoredResource[] = [];
  let total = 0;
  for (const { name, value } of declared) {
    try {
      const made = (bytes: Uint8Array, contentType?: string): StoredResource => ({ name, url: value, mime: resourceMime(contentType, value), sha256: sha256Of(bytes), bytes });
      let resource: StoredResource;
      if (isRemoteUrl(value)) {
        const kept = req.refetch ? undefined : pinned.find(r => r.name === name && r.url === value);
        if (kept) resource = kept;
        else if (!req.fetchRemote) throw new Error('remote resources cannot be fetched for this save');
        else {
          const body = await req.fetchRemote(value, signal);
          resource = made(body.bytes, body.contentType);
        }
      } else if (/^data:/i.test(value)) {
        const data = decodeDataUrl(value);
        resource = made(data.bytes, data.contentType);
      } else if (!req.readLocal) throw new Error('local files cannot be read for this save');
      else resource = made(req.readLocal(value, RESOURCE_MAX_BYTES));
      if (resource.bytes.byteLength > RESOURCE_MAX_BYTES) throw new Error(`it is larger than ${formatBytes(RESOURCE_MAX_BYTES)}.`);
      total += resource.bytes.byteLength;
      if (total > RESOURCES_TOTAL_MAX_BYTES) throw new Error(`the script's resources together are larger than ${formatBytes(RESOURCES_TOTAL_MAX_BYTES)}.`);
      out.push(resource);
    } catch (error) {
      if (signal.aborted) throw error;
      throw unreadableAt(req.code, 'resource', value, error, operationId,
        `A @resource is an http(s) URL the server can fetch (a 2xx answer of at most ${formatBytes(RESOURCE_MAX_BYTES)}, within the policy's host rules), a path relative to the script file (or the workspace for inline code) inside the workspace, or a data: URL; a script's resources together at most ${formatBytes(RESOURCES_TOTAL_MAX_BYTES)}.`);
    }
  }
  return out;
}

/** script_rejected for a `@require` or `@resource` value that could not be resolved, on its header line, with the reason. */
function unreadableAt(code: string, key: 'require' | 'resource', value: string, error: unknown, operationId: string, hint: string): ToolError {
  const reason = error instanceof Error ? error.message : String(error);
  const lines = code.split(/\r\n|\r|\n/);
  const keyAt = new RegExp(`^\\s*//\\s*@${key}\\s`);
  const index = lines.findIndex(l => keyAt.test(l) && l.includes(value));
  const line = index >= 0 ? index + 1 : 1;
  const column = index >= 0 ? lines[index]!.indexOf(value) + 1 : 1;
  const diagnostic: Diagnostic = { severity: 'error', code: `${key}_unreadable`, message: `@${key} ${value}: ${reason}`, line, column };
  return new ToolError('script_rejected', `The script has 1 error: ${line}:${column} ${diagnostic.code}: ${diagnostic.message}`, hint, { diagnostics: [diagnostic], operationId });
}

/** script_not_found for an ID the store does not hold. */
export function scriptNotFound(scriptId: string): ToolError {
  return new ToolError('script_not_found', `There is no script ${scriptId}.`, 'list_scripts shows the scripts and their IDs.');
}

function hashConflict(scriptId: string, expected: string | null, current: string, operationId: string): ToolError {
  return new ToolError(
    'conflict',
    `Script ${scriptId} changed since you read it: expected codeHash ${expected}, current ${current}. Nothing was written.`,
    'import_script it again (returns the current code and codeHash), merge your change, and save with the new expectedCodeHash.',
    { scriptId, expectedCodeHash: expected, currentCodeHash: current, operationId },
  );
}

function identityConflict(other: StoredScript, operationId: string): ToolError {
  return new ToolError(
    'conflict',
    `A script named "${other.name}" in namespace "${other.namespace}" exists already: ${other.id}. Nothing was written.`,
    `To change it, save with scriptId "${other.id}"; to keep both, change @name or @namespace.`,
    { scriptId: other.id, currentCodeHash: other.codeHash, operationId },
  );
}
