/**
 * `POST /v1/tools/{name}` after admission (docs/daemon.md): dispatches the
 * call and answers it as one JSON body, or as Server-Sent Events (progress,
 * consent questions, the result) when the caller accepts
 * `text/event-stream`. A client that disconnects cancels the call.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CallWatch, HEARTBEAT_MAX_MS } from '../dispatch/callWatch.js';
import type { CallHooks } from '../dispatch/dispatcher.js';
import { ToolError } from '../errors.js';
import type { CallOutcome, CallRunner } from './calls.js';
import { HttpPromptChannel, type PendingQuestions } from './consentChannel.js';
import { sendJson } from './httpErrors.js';
import { SseStream } from './sse.js';

export interface ToolCallContext {
  runner: CallRunner;
  pending: PendingQuestions;
  maxResponseBytes: number;
  keepAliveMs: number;
}

/** True when the caller asked for Server-Sent Events. */
export function wantsStream(req: IncomingMessage): boolean {
  return /\btext\/event-stream\b/i.test(req.headers.accept ?? '');
}

/** The JSON answer for an outcome, and its status. */
function answerOf(outcome: CallOutcome): { status: number; body: unknown } {
  if (outcome.kind === 'timeout') return { status: 504, body: { outcome: 'failed', error: outcome.error.toData() } };
  return { status: 200, body: { outcome: 'completed', result: outcome.result } };
}

function tooLarge(bytes: number, max: number): { status: number; body: unknown } {
  const error = new ToolError('result_too_large', `The result is ${bytes} bytes, over the daemon's ${Math.round(max / 1024 / 1024)} MiB response limit.`, 'Ask for less (e.g. output: "file" for screenshots and snapshots, a smaller maxBytes); the call did run.');
  return { status: 500, body: { outcome: 'failed', error: error.toData() } };
}

/**
 * Runs the call and answers it. Resolves when the dispatcher's call has
 * settled (the caller keeps its admission slot until then).
 */
export async function answerToolCall(ctx: ToolCallContext, req: IncomingMessage, res: ServerResponse, name: string, args: Record<string, unknown>, workspace: string): Promise<void> {
  const caller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) caller.abort(new ToolError('cancelled', 'The caller disconnected.', 'Send the call again if it is still wanted.'));
  };
  res.on('close', onClose);
  const stream = wantsStream(req) ? new SseStream(res, ctx.maxResponseBytes, ctx.keepAliveMs) : undefined;
  // A streaming caller hears the call's progress, with a heartbeat (src/dispatch/callWatch.ts). No max-wait here:
  // the CLI waits for every outcome, within the daemon's own call deadline (docs/daemon.md).
  const watch = new CallWatch(name);
  if (stream) watch.listen(async (done, total, message) => void (await stream.send('progress', { done, total, message })), HEARTBEAT_MAX_MS);
  const hooks: CallHooks = {
    signal: caller.signal,
    client: { name: 'tabwright-daemon-http', front: 'cli' }, // not MCP: no protocol version or era
    workspace,
    // `x-tabwright-consent: none`: the caller cannot ask its human (a CLI without a terminal; docs/daemon.md, "Consent").
    prompt: stream && req.headers['x-tabwright-consent'] !== 'none' ? new HttpPromptChannel(stream, ctx.pending) : undefined,
    progress: (done, total, message) => watch.progress(done, total, message),
    waiting: what => watch.setWaiting(what),
  };
  const { outcome, settled } = ctx.runner.run(name, args, hooks);
  const done = await outcome;
  watch.close();
  if (!caller.signal.aborted || done.kind === 'timeout') {
    let answer = answerOf(done);
    const text = JSON.stringify(answer.body);
    if (stream) {
      const frameBytes = Buffer.byteLength(SseStream.frame('result', answer.body));
      if (!stream.fits(frameBytes)) answer = tooLarge(Buffer.byteLength(text), ctx.maxResponseBytes);
      await stream.end('result', answer.body);
    } else {
      const bytes = Buffer.byteLength(text);
      if (bytes > ctx.maxResponseBytes) answer = tooLarge(bytes, ctx.maxResponseBytes);
      sendJson(res, answer.status, answer.body);
    }
  } else {
    stream?.close();
  }
  await settled;
  res.off('close', onClose);
}
