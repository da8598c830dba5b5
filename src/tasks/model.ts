/**
 * The model client of the task tools (docs/tasks.md, "Configuration"): one OpenAI-compatible
 * `POST {TABWRIGHT_LLM_URL}/chat/completions` with tool calling, over Node's fetch. The key comes from
 * `TABWRIGHT_LLM_KEY`, else `<configDir>/llm-key` (a file group or others can read is refused); it goes only into
 * the Authorization header, never into a log line, an error message or argv.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LlmConfig } from '../config.js';
import { ToolError } from '../errors.js';
import { logger } from '../log.js';

const log = logger('tasks');

/** One message of the conversation, as the chat-completions API takes it. */
export type ChatMessage =
  | { role: 'system' | 'user'; content: string }
  | { role: 'assistant'; content: string | null; tool_calls?: ModelToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** A tool call the model asked for; `arguments` is the model's JSON text, unparsed. */
export interface ModelToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A tool the model may call: name, description and JSON Schema of its arguments. */
export interface ModelTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** What the model answered: text, tool calls, or both. */
export interface ModelReply {
  content: string | null;
  toolCalls: ModelToolCall[];
}

/** The key file: `<configDir>/llm-key`. */
export function keyPath(configDir: string): string {
  return join(configDir, 'llm-key');
}

/**
 * The API key: `TABWRIGHT_LLM_KEY`, else the key file's first line; undefined when neither is there (a local server
 * without keys).
 * @throws ToolError model_unavailable when the key file can be read by group or others (mode must be 0600 or 0400).
 */
export function readKey(configDir: string, env: Record<string, string | undefined> = process.env): string | undefined {
  if (env.TABWRIGHT_LLM_KEY) return env.TABWRIGHT_LLM_KEY;
  const path = keyPath(configDir);
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return undefined;
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ToolError('model_unavailable', `The model key file ${path} can be read by other users (mode ${(mode & 0o777).toString(8)}); it is not used.`, `Run \`chmod 600 ${path}\`.`);
  }
  return readFileSync(path, 'utf8').split(/\r?\n/)[0]!.trim() || undefined;
}

/** How many times a request is sent in all when the server is busy or the connection fails before an answer. */
const ATTEMPTS = 3;

/**
 * Asks the model for its next message. A chat completion changes nothing anywhere, so a request that failed before
 * an answer (connection refused or reset, HTTP 429, 502, 503, 504) is sent again, up to 3 times in all, 0.5 s then
 * 1.5 s apart; a timeout (LlmConfig.timeoutMs) or another HTTP error is not.
 * @throws ToolError model_unavailable (unreachable, timed out, an HTTP error, an answer that is not a chat
 *   completion), cancelled (`signal` aborted).
 */
export async function complete(llm: LlmConfig, configDir: string, messages: ChatMessage[], tools: ModelTool[], signal: AbortSignal): Promise<ModelReply> {
  const key = readKey(configDir);
  const body = JSON.stringify({ model: llm.model, messages, ...(tools.length ? { tools, tool_choice: 'auto' } : {}), temperature: 0 });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  let lastError = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    if (signal.aborted) throw new ToolError('cancelled', 'The run was stopped while waiting for the model.', 'Nothing to do.');
    const timeout = AbortSignal.timeout(llm.timeoutMs);
    let response: Response;
    try {
      response = await fetch(`${llm.url}/chat/completions`, { method: 'POST', headers, body, signal: AbortSignal.any([signal, timeout]) });
    } catch (error) {
      if (signal.aborted) throw new ToolError('cancelled', 'The run was stopped while waiting for the model.', 'Nothing to do.');
      if (timeout.aborted) throw new ToolError('model_unavailable', `The model at ${llm.url} did not answer within ${Math.round(llm.timeoutMs / 1000)} s.`, 'Check the model server; raise TABWRIGHT_LLM_TIMEOUT_MS for a slow local model.');
      lastError = `cannot reach ${llm.url}: ${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message}`;
      log.debug(`model request ${attempt} failed: ${lastError}`);
      if (attempt < ATTEMPTS) await pause(attempt, signal);
      continue;
    }
    if ([429, 502, 503, 504].includes(response.status) && attempt < ATTEMPTS) {
      lastError = `HTTP ${response.status}`;
      await response.body?.cancel().catch(() => undefined);
      await pause(attempt, signal);
      continue;
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      throw new ToolError('model_unavailable', `The model at ${llm.url} answered HTTP ${response.status}: ${text.replace(/\s+/g, ' ').slice(0, 200)}`, response.status === 401 || response.status === 403 ? `Check the key (TABWRIGHT_LLM_KEY or ${keyPath(configDir)}).` : `Check TABWRIGHT_LLM_URL (with /v1) and TABWRIGHT_LLM_MODEL (${llm.model}).`);
    }
    return parseReply(text, llm.url);
  }
  throw new ToolError('model_unavailable', `The model failed ${ATTEMPTS} times: ${lastError}.`, 'Check that the model server runs at TABWRIGHT_LLM_URL.');
}

function pause(attempt: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, attempt === 1 ? 500 : 1500);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The first choice's message of a chat-completions answer. @throws ToolError model_unavailable for another shape. */
export function parseReply(text: string, url: string): ModelReply {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ToolError('model_unavailable', `The model at ${url} answered something that is not JSON.`, 'Check TABWRIGHT_LLM_URL: it is the base URL with /v1 (requests go to <url>/chat/completions).');
  }
  const message = (json as { choices?: Array<{ message?: { content?: unknown; tool_calls?: unknown } }> }).choices?.[0]?.message;
  if (!message || typeof message !== 'object') throw new ToolError('model_unavailable', `The model at ${url} answered without choices[0].message.`, 'Use an OpenAI-compatible chat-completions endpoint.');
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const toolCalls: ModelToolCall[] = [];
  for (const [i, c] of calls.entries()) {
    const fn = (c as { function?: { name?: unknown; arguments?: unknown } }).function;
    if (!fn || typeof fn.name !== 'string') continue;
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    toolCalls.push({ id: typeof (c as { id?: unknown }).id === 'string' ? (c as { id: string }).id : `call_${i}`, type: 'function', function: { name: fn.name, arguments: args } });
  }
  return { content: typeof message.content === 'string' ? message.content : null, toolCalls };
}
