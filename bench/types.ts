/**
 * The shape of a benchmark run: what bench/results/<date>.json holds and
 * what the report and chart are rendered from.
 */
import type { ReliabilityResult } from '../src/docs/reliabilityDoc.js';
import type { BenchLens } from './lens.js';

/** The three servers compared. */
export type ServerId = 'tabwright' | 'playwright-mcp' | 'chrome-devtools-mcp';

export const SERVER_IDS: readonly ServerId[] = ['tabwright', 'playwright-mcp', 'chrome-devtools-mcp'];

/**
 * Measures taken per server and page.
 * `snapshot_wire_bytes`: the whole snapshot result as JSON (text blocks and structuredContent), in the raw data only.
 * Following paging lines (servers whose spec has `page`, i.e. tabwright; once per server and page, in the first round
 * that measures the page): `coverage_paged` is the coverage of every ref reached from the default snapshot by following
 * its paging lines (bench/paging.ts), `paged_tokens` the o200k tokens of the default snapshot plus every paging call,
 * `paged_calls` the number of paging calls. A snapshot without paging lines gives its coverage, its tokens and 0.
 * `page_tokens` (one sample per lens): the navigate result plus the snapshot result as that lens's model reads them
 * (bench/lens.ts), plus the snapshot file when the snapshot result points to one.
 */
export type PageMeasure =
  | 'navigate_ms'
  | 'snapshot_ms'
  | 'snapshot_bytes'
  | 'snapshot_wire_bytes'
  | 'snapshot_tokens'
  | 'coverage'
  | 'interactive_refs'
  | 'coverage_paged'
  | 'paged_tokens'
  | 'paged_calls'
  | 'page_tokens';

/** Measures taken once per server and round. */
export type ServerMeasure =
  | 'cold_start_ms'
  | 'initialize_ms'
  | 'click_ms'
  | 'type_ms'
  | 'screenshot_ms'
  | 'screenshot_bytes'
  | 'node_peak_rss_mib'
  | 'tree_peak_rss_mib'
  | 'tools_list_tokens'
  | 'tools_count'
  | 'webmcp_call_ms'
  | 'cli_daemon_ms'
  | 'state_save_ms'
  | 'state_load_ms'
  | 'snapshot_har_off_ms'
  | 'snapshot_har_on_ms'
  | 'click_har_off_ms'
  | 'click_har_on_ms'
  | 'node_start_ms'
  | 'action_tokens'
  | 'screenshot_images'
  | 'screenshot_image_bytes'
  | 'task_tokens'
  | 'task_calls'
  | 'task_file_reads';

/**
 * The lens measures, one sample per lens (`Sample.lens`):
 * - `action_tokens` (`Sample.action`: click, type, screenshot): the action result's text as the model reads it,
 *   `Sample.fileTokens` the size of a snapshot file the result points to (not read, not counted);
 * - `screenshot_images`, `screenshot_image_bytes`: images of the screenshot result the model receives;
 * - `task_tokens`: everything the model reads over the scripted task (bench/task.ts), `verified` false when the
 *   task failed under that lens (then it is reported as failed and not counted).
 * `task_calls` (tool calls plus file reads) and `task_file_reads` have no lens; `Sample.sequence` lists the calls.
 */
export type LensMeasure = 'page_tokens' | 'action_tokens' | 'screenshot_images' | 'screenshot_image_bytes' | 'task_tokens';

export type Measure = PageMeasure | ServerMeasure;

/** One raw measurement. */
export interface Sample {
  round: number;
  server: ServerId;
  measure: Measure;
  /** Page id for page measures. */
  page?: string;
  value: number;
  /** For actions: whether the effect was verified in the DOM afterwards. */
  verified?: boolean;
  /** For snapshots: whether the text came inline or through a file the response pointed to. */
  delivery?: 'inline' | 'file';
  /** For snapshots: the snapshot shows part of a long container and says how to page through the rest. */
  paged?: boolean;
  /** For paging measures: the follow stopped at its cap (400 calls) with pages left unfetched. */
  capped?: boolean;
  /** For coverage: the ref'd snapshot nodes by kind (so coverage can be recomputed from the raw data). */
  refs?: Census & { other: number };
  /** For lens measures: the client view the value is of. */
  lens?: BenchLens;
  /** For action_tokens: which action. */
  action?: 'click' | 'type' | 'screenshot';
  /** For action_tokens: tokens of the snapshot file the result points to (not in `value`: the agent need not read it). */
  fileTokens?: number;
  /** For task_calls: the calls in order (tool names, and "read file" for a file the agent read). */
  sequence?: string[];
  /** For task_calls: the content-only tokens of each call in `sequence`. */
  sequenceTokens?: number[];
}

/** Visible links, buttons and form controls counted in the page. */
export interface Census {
  links: number;
  buttons: number;
  controls: number;
}

export interface PageInfo {
  id: string;
  kind: 'generated' | 'corpus';
  /** What the page is, for the report. */
  description: string;
  /** Size of the HTML served. */
  htmlBytes: number;
  /** The count in the page, per server (each counts through its own evaluate tool). */
  census: Partial<Record<ServerId, Census>>;
}

export interface ServerInfo {
  id: ServerId;
  label: string;
  /** Package version (tabwright: package.json version + commit). */
  version: string;
  status: 'ok' | 'install_failed' | 'start_failed' | 'failed';
  error?: string;
  /** The command line used (node + script + flags), paths shortened. */
  command: string[];
  /** Chromium switches the browser got (directly or through the server's config). */
  browserArgs: string[];
  /** Notes on how the server was driven (defaults kept, settle waits, ...). */
  notes: string[];
  /** The browser process's argv as it actually ran (from /proc), first round. */
  chromiumCommandLine?: string[];
}

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  node: string;
  chromium: string;
}

/** A step that failed: reported, never fatal. */
export interface BenchError {
  round: number;
  server: ServerId;
  step: string;
  message: string;
}

export interface Results {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  options: { rounds: number; quick: boolean; corpus?: string };
  machine: Machine;
  servers: ServerInfo[];
  pages: PageInfo[];
  samples: Sample[];
  errors: BenchError[];
  /** The transports phase (bench/transportRun.ts): tabwright on each connection transport; absent in older runs. */
  transports?: TransportResults;
  /** The reliability suite's results found at bench time (bench/reliability.ts); absent in older runs. */
  reliability?: ReliabilityResult[];
}

/**
 * How tabwright reaches the browser, as the transports phase measures it (bench/transports.ts): `launch` (the
 * managed headless Chromium, the reference), `cdp` (for comparison: a running Chromium over a plain DevTools
 * WebSocket), `own-chrome` (a running Chromium through the in-process CDP relay), `extension` (the companion
 * extension; listed once it is built).
 */
export type TransportId = 'launch' | 'cdp' | 'own-chrome' | 'extension';

/** The operations timed per transport and round, in the order they run. */
export type TransportOp = 'navigate' | 'snapshot' | 'click' | 'type' | 'screenshot';

export const TRANSPORT_OPS: readonly TransportOp[] = ['navigate', 'snapshot', 'click', 'type', 'screenshot'];

/** One timed tool call of the transports phase. */
export interface TransportSample {
  round: number;
  transport: TransportId;
  op: TransportOp;
  /** Client send → result parsed, in ms. */
  ms: number;
  /** click and type: the effect was seen in the DOM afterwards (checked outside the timed call). */
  verified?: boolean;
  /** screenshot: bytes of the image returned. */
  bytes?: number;
}

export interface TransportInfo {
  id: TransportId;
  label: string;
  status: 'ok' | 'start_failed';
  error?: string;
  /** The tabwright command line (after `node`), paths shortened. */
  command: string[];
  /** How the transport was set up, for the report. */
  notes: string[];
  /** The browser process's argv as it ran (from /proc). */
  browserCommandLine?: string[];
  /** Shown for comparison only: divided by the reference, but no target (the `cdp` row). */
  comparison?: boolean;
  /** The page's viewport (innerWidth × innerHeight) as the transport's tab has it, e.g. "1280x720". */
  viewport?: string;
}

export interface TransportResults {
  /** Timed rounds (each transport once a round, order rotated); an untimed warm-up pass comes first. */
  rounds: number;
  /** The transport the others are divided by (launch). */
  reference: TransportId;
  /** Target: each other transport's median at most `targetRatio` × the reference's. */
  targetRatio: number;
  transports: TransportInfo[];
  samples: TransportSample[];
}
