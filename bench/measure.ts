/**
 * The measurements, one function per step, each recording samples into the
 * results and throwing on failure (the caller records the error and goes
 * on). Timed spans are tool round trips only; reading files, counting
 * tokens and verification happen outside them.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CENSUS_FUNCTION, censusTotal, parseCensus } from './census.js';
import { measureCliLatency } from './cliLatency.js';
import { measureHarOverhead } from './harOverhead.js';
import { measureStorageLatency } from './storageLatency.js';
import { BENCH_LENSES, lensCosts } from './lens.js';
import type { BenchPage, Site } from './pages.js';
import { followPaging, pagingCalls } from './paging.js';
import type { TreeSampler } from './procs.js';
import { entryScript, type ServerSpec } from './servers.js';
import { Session, type CallOutcome } from './session.js';
import { findRef, interactiveCoverage, interactiveRefCount, isPaged, parseRefs, refKinds } from './snapshotText.js';
import { runCosts, runTask } from './task.js';
import { countTokens } from './tokens.js';
import type { Census, Measure, Results, Sample, ServerId } from './types.js';

/** What every step needs. */
export interface Ctx {
  results: Results;
  site: Site;
  root: string;
  cacheDir: string;
  chromium: string;
  isRoot: boolean;
  sampler: TreeSampler;
  /** Timeout of one tool call; snapshots of the large page get `slowTimeoutMs`. */
  timeoutMs: number;
  slowTimeoutMs: number;
  log(line: string): void;
}

function record(ctx: Ctx, round: number, server: ServerId, measure: Measure, value: number, extra: Partial<Sample> = {}): void {
  ctx.results.samples.push({ round, server, measure, value, ...extra });
}

/**
 * Snapshot text as the agent gets it: the response text, plus the file's contents when the response points to one
 * (`fileText`: the agent reads the file with its client's own file tool, so it costs the same under every lens).
 */
export function snapshotText(spec: ServerSpec, out: CallOutcome, workspace: string): { text: string; delivery: 'inline' | 'file'; fileText?: string } {
  const file = spec.snapshotFile(out.text, out.structured, workspace);
  if (file && existsSync(file)) {
    const fileText = readFileSync(file, 'utf8');
    return { text: `${out.text}\n${fileText}`, delivery: 'file', fileText };
  }
  return { text: out.text, delivery: 'inline' };
}

/** Chrome DevTools MCP routes by pageId: read the selected page's id from list_pages. */
async function prepareState(session: Session, ctx: Ctx): Promise<void> {
  if (session.spec.id !== 'chrome-devtools-mcp') return;
  const out = await session.ok({ name: 'list_pages', args: {} }, ctx.timeoutMs);
  const m = /^(\d+):.*\[selected\]/m.exec(out.text) ?? /^(\d+):/m.exec(out.text);
  if (!m) throw new Error(`list_pages: no page id in ${JSON.stringify(out.text.slice(0, 200))}`);
  session.state.pageId = Number(m[1]);
}

/**
 * Cold start: spawn → initialize → first navigate (the login page) + snapshot.
 * Returns the live session for the rest of the round.
 */
export async function coldStart(spec: ServerSpec, ctx: Ctx, round: number): Promise<Session> {
  const { session, initializeMs, t0 } = await Session.start(spec, {
    script: entryScript(spec, ctx.root, ctx.cacheDir),
    chromium: ctx.chromium,
    root: ctx.isRoot,
    sampler: ctx.sampler,
    key: `${spec.id}#${round}`,
    timeoutMs: ctx.timeoutMs,
  });
  try {
    // Chrome DevTools MCP needs a pageId before its first navigate: list_pages is part of its cold start.
    await prepareState(session, ctx);
    await session.ok(spec.navigate(`${ctx.site.origin}/gen/login`, session.state), ctx.timeoutMs);
    await session.ok(spec.snapshot(session.state), ctx.timeoutMs);
    record(ctx, round, spec.id, 'cold_start_ms', performance.now() - t0);
    record(ctx, round, spec.id, 'initialize_ms', initializeMs);
    return session;
  } catch (error) {
    await session.close();
    throw error;
  }
}

/** tools/list: size of the tool list as JSON, in tokens, and the tool count. */
export async function toolsList(session: Session, ctx: Ctx, round: number): Promise<Array<{ name: string; inputSchema?: object }>> {
  const { tools } = await session.client.listTools();
  record(ctx, round, session.spec.id, 'tools_list_tokens', countTokens(JSON.stringify(tools)));
  record(ctx, round, session.spec.id, 'tools_count', tools.length);
  return tools as Array<{ name: string; inputSchema?: object }>;
}

/** Counts visible interactive elements through the server's evaluate tool. */
export async function census(session: Session, ctx: Ctx): Promise<Census> {
  const out = await session.ok(session.spec.evaluate(CENSUS_FUNCTION, session.state), ctx.slowTimeoutMs);
  const c = parseCensus(out.text) ?? parseCensus(JSON.stringify(out.structured ?? {}));
  if (!c) throw new Error(`census: no count in the evaluate result ${JSON.stringify(out.text.slice(0, 200))}`);
  return c;
}

/** Per page: navigate and snapshot latency, snapshot bytes and tokens, coverage (the census is taken once per server and page). */
export async function measurePage(session: Session, page: BenchPage, ctx: Ctx, round: number): Promise<void> {
  const { spec } = session;
  const timeout = page.id === 'large' || page.kind === 'corpus' ? ctx.slowTimeoutMs : ctx.timeoutMs;
  const base = { page: page.id };
  const nav = await session.ok(spec.navigate(`${ctx.site.origin}${page.path}`, session.state), timeout);
  record(ctx, round, spec.id, 'navigate_ms', nav.ms, base);
  const snap = await session.ok(spec.snapshot(session.state), timeout);
  const { text, delivery, fileText } = snapshotText(spec, snap, session.workspace);
  // Per lens: navigate + snapshot as that client's model reads them (a navigate result's own snapshot file is not
  // read: the agent takes the snapshot instead, which is the same page state).
  const navCost = lensCosts(nav.raw);
  const snapCost = lensCosts(snap.raw, fileText);
  for (const lens of BENCH_LENSES) record(ctx, round, spec.id, 'page_tokens', navCost[lens].tokens + snapCost[lens].tokens, { ...base, lens, delivery });
  const paged = isPaged(text) ? { paged: true } : {};
  const info = ctx.results.pages.find(p => p.id === page.id)!;
  info.census[spec.id] ??= await census(session, ctx);
  const nodes = parseRefs(text);
  record(ctx, round, spec.id, 'snapshot_ms', snap.ms, { ...base, delivery });
  record(ctx, round, spec.id, 'snapshot_bytes', Buffer.byteLength(text), { ...base, delivery });
  record(ctx, round, spec.id, 'snapshot_wire_bytes', snap.wireBytes, base);
  record(ctx, round, spec.id, 'snapshot_tokens', countTokens(text), { ...base, delivery, ...paged });
  record(ctx, round, spec.id, 'interactive_refs', interactiveRefCount(nodes), base);
  const coverage = interactiveCoverage(nodes, info.census[spec.id]!);
  record(ctx, round, spec.id, 'coverage', coverage, { ...base, refs: refKinds(nodes), ...paged });
  if (censusTotal(info.census[spec.id]!) === 0) ctx.log(`  ${spec.id} ${page.id}: census found no interactive elements`);
  const followed = ctx.results.samples.some(x => x.server === spec.id && x.page === page.id && x.measure === 'coverage_paged');
  if (spec.page && !followed) await followPages(session, text, coverage, info.census[spec.id]!, page.id, timeout, ctx, round);
}

/**
 * Once per server and page (after the page's other measures, so a failure here loses none of them): follows every
 * paging line of the default snapshot `text` (bench/paging.ts) and records coverage_paged, paged_tokens and
 * paged_calls. A snapshot without paging lines records its own coverage and tokens, and 0 calls.
 */
async function followPages(session: Session, text: string, coverage: number, census: Census, pageId: string, timeout: number, ctx: Ctx, round: number): Promise<void> {
  const { spec } = session;
  const base = { page: pageId };
  if (!pagingCalls(text).length) {
    record(ctx, round, spec.id, 'coverage_paged', coverage, { ...base, refs: refKinds(parseRefs(text)) });
    record(ctx, round, spec.id, 'paged_tokens', countTokens(text), base);
    record(ctx, round, spec.id, 'paged_calls', 0, base);
    return;
  }
  const fetch = async (ref: string, offset: number) => snapshotText(spec, await session.ok(spec.page!(ref, offset, session.state), timeout), session.workspace).text;
  const f = await followPaging(text, fetch);
  const extra = { ...base, paged: true, ...(f.capped ? { capped: true } : {}) };
  record(ctx, round, spec.id, 'coverage_paged', interactiveCoverage(f.nodes, census), { ...extra, refs: refKinds(f.nodes) });
  record(ctx, round, spec.id, 'paged_tokens', f.tokens, extra);
  record(ctx, round, spec.id, 'paged_calls', f.calls, extra);
  if (f.capped) ctx.log(`  ${spec.id} ${pageId}: stopped following paging lines at ${f.calls} calls`);
}

/** Evaluates `() => <expr>` through the server and returns the result text (for DOM checks). */
async function probe(session: Session, ctx: Ctx, expr: string): Promise<string> {
  const out = await session.ok(session.spec.evaluate(`() => ${expr}`, session.state), ctx.timeoutMs);
  return `${out.text}\n${JSON.stringify(out.structured ?? {})}`;
}

/**
 * On a fresh load of the login page: click "Sign in" by ref and type into
 * "Username" by ref (each verified in the DOM afterwards), then a viewport
 * screenshot (round trip and image bytes).
 */
export async function measureActions(session: Session, ctx: Ctx, round: number): Promise<void> {
  const { spec } = session;
  await session.ok(spec.navigate(`${ctx.site.origin}/gen/login`, session.state), ctx.timeoutMs);
  const { text } = snapshotText(spec, await session.ok(spec.snapshot(session.state), ctx.timeoutMs), session.workspace);
  const nodes = parseRefs(text);
  const button = findRef(nodes, 'button', 'Sign in');
  const field = findRef(nodes, 'textbox', 'Username');
  if (!button || !field) throw new Error(`login page: no ref for the Sign in button or the Username field in the snapshot`);

  const typed = `bench-user-${round}`;
  const type = await session.ok(spec.type(field, 'Username textbox', typed, session.state), ctx.timeoutMs);
  const typeOk = (await probe(session, ctx, `'TWV:' + document.getElementById('user').value`)).includes(`TWV:${typed}`);
  record(ctx, round, spec.id, 'type_ms', type.ms, { verified: typeOk });
  recordActionTokens(session, ctx, round, 'type', type);

  const click = await session.ok(spec.click(button, 'Sign in button', session.state), ctx.timeoutMs);
  const clickOk = (await probe(session, ctx, `'TWC:' + document.body.dataset.clicks`)).includes('TWC:1');
  record(ctx, round, spec.id, 'click_ms', click.ms, { verified: clickOk });
  recordActionTokens(session, ctx, round, 'click', click);

  const shot = await session.ok(spec.screenshot(session.state), ctx.timeoutMs);
  record(ctx, round, spec.id, 'screenshot_ms', shot.ms);
  record(ctx, round, spec.id, 'screenshot_bytes', shot.images.length ? shot.images.reduce((a, b) => a + b, 0) : screenshotFileBytes(shot.text, session.workspace));
  const shotCost = recordActionTokens(session, ctx, round, 'screenshot', shot);
  for (const lens of BENCH_LENSES) {
    record(ctx, round, spec.id, 'screenshot_images', shotCost[lens].images, { lens });
    record(ctx, round, spec.id, 'screenshot_image_bytes', shotCost[lens].imageBytes, { lens });
  }
  if (!typeOk || !clickOk) ctx.log(`  ${spec.id}: DOM check failed (type ${typeOk}, click ${clickOk})`);
}

/**
 * action_tokens per lens: the action result's text as each lens's model reads it. A snapshot file the result points
 * to (Playwright MCP's click) is not counted here, as the agent need not read it after every action; its size is
 * kept in `fileTokens`, and the scripted task counts it whenever the agent does read it.
 */
function recordActionTokens(session: Session, ctx: Ctx, round: number, action: 'click' | 'type' | 'screenshot', out: CallOutcome): ReturnType<typeof lensCosts> {
  const file = session.spec.snapshotFile(out.text, out.structured, session.workspace);
  const fileTokens = file && existsSync(file) ? countTokens(readFileSync(file, 'utf8')) : undefined;
  const costs = lensCosts(out.raw);
  for (const lens of BENCH_LENSES) record(ctx, round, session.spec.id, 'action_tokens', costs[lens].tokens, { lens, action, ...(fileTokens !== undefined ? { fileTokens } : {}) });
  return costs;
}

/**
 * The scripted task (bench/task.ts) on a fresh load of the shop page: task_tokens per lens (verified: done under that
 * lens), task_calls and task_file_reads with the call sequence. A task that stops or fails the page's own check is
 * recorded as failed (verified false, with the reason in the errors) and not counted.
 */
export async function measureTask(session: Session, ctx: Ctx, round: number): Promise<void> {
  const { spec } = session;
  const run = await runTask(
    {
      spec,
      workspace: session.workspace,
      state: session.state,
      call: c => session.ok(c, ctx.timeoutMs),
      probe: expr => probe(session, ctx, expr),
    },
    `${ctx.site.origin}/gen/shop`,
  );
  const costs = runCosts(run);
  const done = BENCH_LENSES.some(lens => costs[lens].verified);
  for (const lens of BENCH_LENSES) record(ctx, round, spec.id, 'task_tokens', costs[lens].tokens, { lens, verified: costs[lens].verified });
  const sequenceTokens = run.reads.map(r => (r.kind === 'file' ? countTokens(r.text) : lensCosts(r.raw)['content-only'].tokens));
  record(ctx, round, spec.id, 'task_calls', run.sequence.length, { verified: done, sequence: run.sequence, sequenceTokens });
  record(ctx, round, spec.id, 'task_file_reads', run.fileReads, { verified: done });
  const failed = [...new Set(BENCH_LENSES.filter(l => !costs[l].verified).map(l => costs[l].failure!))];
  for (const reason of failed) {
    const lenses = BENCH_LENSES.filter(l => costs[l].failure === reason);
    ctx.results.errors.push({ round, server: spec.id, step: 'task', message: `failed under ${lenses.join(', ')}: ${reason} (calls: ${run.sequence.join(' → ')})` });
    ctx.log(`  ${spec.id} task: failed under ${lenses.join(', ')}: ${reason}`);
  }
}

/** Bytes of an image file a screenshot response names, when it returned no image inline. */
function screenshotFileBytes(text: string, workspace: string): number {
  const m = /([^\s()[\]]+\.(?:png|jpe?g|webp))/i.exec(text);
  if (!m) return NaN;
  for (const candidate of [m[1]!, `${workspace}/${m[1]}`]) if (existsSync(candidate)) return statSync(candidate).size;
  return NaN;
}

/** tabwright only: call_webmcp_tool on the page's trivial `echo` tool, three times (the first list is not timed). */
export async function measureWebmcp(session: Session, ctx: Ctx, round: number): Promise<void> {
  await session.ok({ name: 'navigate', args: { url: `${ctx.site.origin}/gen/webmcp` } }, ctx.timeoutMs);
  await session.ok({ name: 'list_webmcp_tools', args: {} }, ctx.timeoutMs);
  for (let i = 0; i < 3; i++) {
    const text = `ping-${round}-${i}`;
    const out = await session.ok({ name: 'call_webmcp_tool', args: { name: 'echo', arguments: { text } } }, ctx.timeoutMs);
    record(ctx, round, 'tabwright', 'webmcp_call_ms', out.ms, { verified: out.text.includes(text) || JSON.stringify(out.structured ?? {}).includes(text) });
  }
}

/**
 * tabwright only: `tabwright tabs` against a warm daemon of its
 * own (temporary dirs and ports), 10 runs a round, spawn to exit; see
 * bench/cliLatency.ts. Each sample is verified by the command exiting 0.
 */
export async function measureCli(ctx: Ctx, round: number): Promise<void> {
  const r = await measureCliLatency(10);
  for (const ms of r.samplesMs) record(ctx, round, 'tabwright', 'cli_daemon_ms', ms, { verified: true });
  record(ctx, round, 'tabwright', 'node_start_ms', r.nodeFloorMedianMs);
}

/**
 * tabwright only: save_storage_state and load_storage_state of a signed-in origin (a cookie, 20 localStorage items,
 * 50 IndexedDB records) on a server of its own with the storage tool set, 3 of each a round; see
 * bench/storageLatency.ts. Each sample is verified by the counts the result gives.
 */
export async function measureStorage(ctx: Ctx, round: number): Promise<void> {
  const r = await measureStorageLatency(3, ctx.chromium);
  for (const s of r.save) record(ctx, round, 'tabwright', 'state_save_ms', s.ms, { verified: s.verified });
  for (const s of r.loadScratch) record(ctx, round, 'tabwright', 'state_load_ms', s.ms, { verified: s.verified });
}

/** What a HAR recording costs the snapshot and click rows: 3 passes each way on a server of its own (bench/harOverhead.ts). */
export async function measureHar(ctx: Ctx, round: number): Promise<void> {
  const { rows } = await measureHarOverhead(3, ctx.chromium);
  for (const ms of rows.snapshot.off) record(ctx, round, 'tabwright', 'snapshot_har_off_ms', ms);
  for (const ms of rows.snapshot.on) record(ctx, round, 'tabwright', 'snapshot_har_on_ms', ms);
  for (const ms of rows.click.off) record(ctx, round, 'tabwright', 'click_har_off_ms', ms);
  for (const ms of rows.click.on) record(ctx, round, 'tabwright', 'click_har_on_ms', ms);
}

/** Peak RSS of the node process and of the whole tree over the round. */
export function recordMemory(session: Session, ctx: Ctx, round: number): void {
  const peaks = session.peaks();
  if (!peaks) return;
  record(ctx, round, session.spec.id, 'node_peak_rss_mib', peaks.nodeMiB);
  record(ctx, round, session.spec.id, 'tree_peak_rss_mib', peaks.treeMiB);
}
