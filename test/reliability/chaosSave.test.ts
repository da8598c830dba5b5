/**
 * The daemon killed mid-save (docs/reliability.md, "Chaos"): a real daemon
 * saves a new version of a large userscript over `POST /v1/tools/export_script`
 * and is killed with SIGKILL at a random moment of that request: before it is
 * read, while the save validates, normalizes, persists or deploys, or after its
 * answer. After each kill a fresh daemon on the same data dir must show the
 * script as the old or the new version, whole (its code hash is the hash of its
 * code), and the save's receipt (`get_bridge_status {scriptId}`) must agree: a
 * committed receipt names the current code, and while a receipt that did not
 * commit is the latest, the old version stays. An answer the client got before the
 * kill is kept: "Updated" means the new version after the restart.
 *
 * TABWRIGHT_CHAOS_SAVE_ROUNDS: kills (default 100), in CHAINS chains of rounds
 * side by side, each chain a daemon of its own on a data dir of its own: every
 * round starts a daemon (about 0.7 s of node start on an idle machine).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from '../fixtures/daemon.js';
import { record } from './fuzz.js';

const ROUNDS = Math.max(1, Number(process.env.TABWRIGHT_CHAOS_SAVE_ROUNDS) || 100);
const CHAINS = Math.min(ROUNDS, 4);
const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** About 600 KB of code (the default limit is 1 MiB), so a save takes long enough for kills to land inside it. */
const BODY = Array.from({ length: 8_000 }, (_, i) => `globalThis.v${i} = ${JSON.stringify('x'.repeat(60))};`).join('\n');
const version = (n: number) => ['// ==UserScript==', '// @name Chaos', '// @namespace https://chaos.test', '// @match https://chaos.test/*',
  '// @grant none', '// ==/UserScript==', `/* version ${n} */`, BODY, ''].join('\n');

const dirs = mkdtempSync(join(tmpdir(), 'tabwright-chaos-save-'));
after(() => rmSync(dirs, { recursive: true, force: true }));

/** A daemon on `dataDir` (its config dir, daemon.json and workspace are its own). */
const daemonOnData = (dataDir: string) => startDaemon({ env: { TABWRIGHT_DATA_DIR: dataDir } });

interface Saved { scriptId: string; codeHash: string }
interface Receipt { status: string; codeHash?: string | null; matchesCurrentCode?: boolean }

/** The script as the daemon has it now: its code (written to the workspace by import_script) and code hash. */
async function current(daemon: Daemon, scriptId: string): Promise<{ code: string; codeHash: string; receipt: Receipt }> {
  const imported = await daemon.request({ path: '/v1/tools/import_script', body: { scriptId, path: 'now.user.js' } });
  assert.equal(imported.status, 200, imported.text);
  const { path, codeHash } = imported.json.result.structuredContent as { path: string; codeHash: string };
  const status = await daemon.request({ path: '/v1/tools/get_bridge_status', body: { scriptId } });
  assert.equal(status.status, 200, status.text);
  return { code: readFileSync(path, 'utf8'), codeHash, receipt: status.json.result.structuredContent.save as Receipt };
}

interface Outcomes { old: number; new: number; answeredBeforeKill: number; notCommittedReceipt: number }

/**
 * One chain: a script saved on data dir `dataDir`, then `rounds` saves of a next version, each killed at a random
 * moment within 0-1.5x of `estimateMs` after its request went out, and judged after a restart. The estimate follows
 * where the commit falls on this machine now: it grows 10% after a kill that left the old version, shrinks 10% after
 * one that left the new, so kills land on both sides of the commit. Pushes what broke onto `broken`; counts into
 * `outcomes`.
 */
async function chain(dataDir: string, rounds: number, estimateMs: number, outcomes: Outcomes, broken: string[]): Promise<void> {
  let daemon = await daemonOnData(dataDir);
  const first = await daemon.request({ path: '/v1/tools/export_script', body: { code: version(0) } });
  assert.equal(first.status, 200, first.text);
  const { scriptId } = first.json.result.structuredContent as Saved;
  let oldN = 0;
  for (let round = 1; round <= rounds; round++) {
    const next = version(round);
    const ms = Math.random() * estimateMs * 1.5;
    let answered: number | undefined;
    const pending = daemon.request({ path: '/v1/tools/export_script', body: { code: next, scriptId, expectedCodeHash: sha(version(oldN)) } })
      .then(reply => {
        answered = reply.status;
        return reply;
      }, () => undefined);
    await new Promise(resolve => setTimeout(resolve, ms));
    daemon.proc.kill('SIGKILL');
    await daemon.exited;
    const reply = await pending;
    await daemon.stop();

    daemon = await daemonOnData(dataDir);
    const now = await current(daemon, scriptId);
    const isNew = now.code === next;
    const isOld = now.code === version(oldN);
    const fail = (why: string) => broken.push(`${dataDir} round ${round} (kill at ${ms.toFixed(1)} ms): ${why}`);
    if (!isNew && !isOld) fail(`the script is neither version (${now.code.length} chars, starts ${JSON.stringify(now.code.slice(0, 120))})`);
    else if (now.codeHash !== sha(now.code)) fail('its codeHash is not the hash of its code');
    else if (answered === 200 && reply?.json?.outcome === 'completed' && !isNew) fail('the client was told "Updated" and the old version came back');
    else if (now.receipt.status === 'committed' && now.receipt.matchesCurrentCode !== true) fail(`a committed receipt that is not the current code: ${JSON.stringify(now.receipt)}`);
    else if (now.receipt.status === 'committed' && now.receipt.codeHash === sha(next) && !isNew) fail('the new version\'s receipt committed, the old code stayed');
    // The latest receipt that did not commit is this round's or an earlier killed round's: never the code in place.
    else if (now.receipt.status === 'not_committed' && (now.receipt.codeHash === now.codeHash || !isOld)) fail(`a receipt that did not commit, with the new code in place: ${JSON.stringify(now.receipt)}`);
    else if (!['committed', 'not_committed'].includes(now.receipt.status)) fail(`receipt status ${now.receipt.status}`);
    if (answered !== undefined) outcomes.answeredBeforeKill++;
    if (now.receipt.status === 'not_committed') outcomes.notCommittedReceipt++;
    if (isNew) {
      outcomes.new++;
      oldN = round;
      estimateMs *= 0.9;
    } else if (isOld) {
      outcomes.old++;
      estimateMs *= 1.1;
    }
    else break; // the script is lost: no later round can be judged
  }
  // After the last kill the store still takes a save.
  const last = await daemon.request({ path: '/v1/tools/export_script', body: { code: version(rounds + 1), scriptId, expectedCodeHash: sha(version(oldN)) } });
  if (last.status !== 200 || last.json.outcome !== 'completed') broken.push(`${dataDir}: the save after the last kill failed: ${last.text.slice(0, 500)}`);
  await daemon.stop();
}

test(`the daemon killed at a random moment of a save, ${ROUNDS} times: the script is the old or the new version, whole, and its receipt agrees`, async () => {
  const started = Date.now();
  // How long the first save of this size takes on a daemon just started (as in every round), CHAINS daemons at once
  // (as the rounds run): each chain's first estimate of when its saves commit.
  const timings = await Promise.all(Array.from({ length: CHAINS }, async (_, k) => {
    const daemon = await daemonOnData(join(dirs, `probe${k}`));
    const t = Date.now();
    const saved = await daemon.request({ path: '/v1/tools/export_script', body: { code: version(0) } });
    const ms = Date.now() - t;
    await daemon.stop();
    assert.equal(saved.status, 200, saved.text);
    return ms;
  }));
  const saveMs = Math.round(timings.reduce((a, b) => a + b, 0) / timings.length);

  const outcomes: Outcomes = { old: 0, new: 0, answeredBeforeKill: 0, notCommittedReceipt: 0 };
  const broken: string[] = [];
  await Promise.all(Array.from({ length: CHAINS }, (_, k) =>
    chain(join(dirs, `chain${k}`), Math.floor(ROUNDS / CHAINS) + (k < ROUNDS % CHAINS ? 1 : 0), saveMs, outcomes, broken)));

  record({
    target: 'chaos-daemon-save',
    what: `The daemon SIGKILLed at a random moment (0-1.5x of an estimate of when the save commits, first ${saveMs} ms, adapted round by round) of export_script of a 600 KB userscript, then restarted on the same data dir (${CHAINS} chains of rounds side by side, a data dir each): the script is the old or the new version, whole; a receipt that committed names the current code, one that did not is never the code in place; an answered "Updated" is kept; a save after the last kill works`,
    kind: 'chaos',
    inputs: ROUNDS,
    failures: broken.length,
    ms: Date.now() - started,
    notes: { oldVersion: outcomes.old, newVersion: outcomes.new, answeredBeforeKill: outcomes.answeredBeforeKill, receiptNotCommitted: outcomes.notCommittedReceipt, saveMs },
    ...(broken.length ? { counterexample: broken[0] } : {}),
    at: new Date().toISOString(),
  });
  assert.deepEqual(broken, []);
  // Kills that land before the save commits and kills after it: both sides were tried.
  assert.ok(outcomes.old > 0 && outcomes.new > 0, `outcomes ${JSON.stringify(outcomes)}`);
});
