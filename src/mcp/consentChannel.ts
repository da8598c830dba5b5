/**
 * The MCP front's consent channel: the human is asked through the
 * MCP client when it declared the elicitation capability. On 2025-era
 * connections the server sends an `elicitation/create` request and waits
 * (the gate sends progress meanwhile); on 2026-07-28 connections the call
 * returns an `input_required` result, the client asks and retries, and the
 * retry carries the answer (the MCP specification, "Elicitation"). The retry's
 * `requestState` is HMAC-sealed by this process and names the asked origin,
 * tool and time, so an answer counts only for the question it answers and
 * only within the consent timeout.
 */
import { randomBytes } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY, createRequestStateCodec, inputRequired, inputResponse,
  type ElicitResult, type InputRequiredResult, type McpServer, type ServerContext,
} from '@modelcontextprotocol/server';
import { answerLabel, ConsentPending, offeredAnswers, questionText, type ConsentAnswer, type ConsentQuestion, type PromptChannel } from '../consent/channel.js';
import { ToolError } from '../errors.js';

/** What a consent round-trip carries in its sealed requestState. */
interface ConsentState {
  /** Origin and tool asked about. */
  o: string;
  k: string;
  /** When the question went out, epoch ms. */
  t: number;
  /** A code tool's question: its code's hash, so an answer counts for that code only. */
  h?: string;
}

/** Seals requestState for this process's rounds (stdio: one process serves every round of a call). */
export const consentStateCodec = createRequestStateCodec<ConsentState>({ key: randomBytes(32), ttlSeconds: 3600 });

const INPUT_KEY = 'tabwright_consent';

/**
 * The elicitation form: one choice among the answers the question offers (a WebMCP tool: allow once, always allow,
 * deny, always deny; a code tool adds this exact code and every site, docs/policy.md). Decline = deny.
 */
export function requestedSchema(question: ConsentQuestion) {
  const code = question.source === 'tabwright';
  return {
    type: 'object' as const,
    properties: {
      decision: {
        type: 'string' as const,
        title: 'Decision',
        oneOf: offeredAnswers(question).map(a => ({ const: a, title: answerLabel(a, code) })),
      },
    },
    required: ['decision'],
  };
}

/** Maps an elicitation result to an answer: accept with a decision the question offers, else deny (decline, cancel, junk). */
export function answerOf(action: string, content: Record<string, unknown> | undefined, offers: readonly ConsentAnswer[] = offeredAnswers({})): ConsentAnswer {
  const decision = content?.decision;
  if (action === 'accept' && typeof decision === 'string' && (offers as readonly string[]).includes(decision)) return decision as ConsentAnswer;
  return 'deny';
}

/** 2025 era: an `elicitation/create` request, awaited. */
class PushElicitationChannel implements PromptChannel {
  readonly name = 'elicitation' as const;
  constructor(private readonly ctx: ServerContext) {}

  async ask(question: ConsentQuestion, signal: AbortSignal): Promise<ConsentAnswer> {
    let result: ElicitResult;
    try {
      result = await this.ctx.mcpReq.elicitInput(
        { mode: 'form', message: questionText(question), requestedSchema: requestedSchema(question) },
        { signal, timeout: Math.max(1000, question.expiresAt - Date.now() + 5000) },
      );
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw error;
    }
    return answerOf(result.action, result.content as Record<string, unknown> | undefined, offeredAnswers(question));
  }
}

/** 2026-07-28 era: the question rides an `input_required` result; the retry carries the answer. */
class RoundTripElicitationChannel implements PromptChannel {
  readonly name = 'elicitation' as const;
  readonly inResult = true;
  /** Set when ask() handed the question out: the MCP front returns it instead of the tool result. */
  pending?: InputRequiredResult;
  constructor(private readonly ctx: ServerContext, private readonly timeoutMs: number) {}

  async ask(question: ConsentQuestion): Promise<ConsentAnswer> {
    const state = this.ctx.mcpReq.requestState<ConsentState>();
    const response = inputResponse(this.ctx.mcpReq.inputResponses, INPUT_KEY);
    if (state && state.o === question.origin && state.k === question.tool && state.h === question.codeHash && response.kind === 'elicit') {
      if (Date.now() - state.t > this.timeoutMs) {
        throw new ToolError('consent_expired', `The answer to the consent prompt for ${question.source === 'tabwright' ? `tabwright tool ${question.tool} on` : `WebMCP tool "${question.tool}" of`} ${question.origin} came after ${Math.round(this.timeoutMs / 1000)} s.`, 'Do not re-issue calls with side effects in a loop; ask the user, then try once more.');
      }
      return answerOf(response.action, response.content, offeredAnswers(question));
    }
    // Not asked yet, or an answer without our sealed question (never taken as consent): ask.
    const requestState = await consentStateCodec.mint({ o: question.origin, k: question.tool, t: Date.now(), ...(question.codeHash ? { h: question.codeHash } : {}) });
    this.pending = inputRequired({
      inputRequests: { [INPUT_KEY]: inputRequired.elicit({ message: questionText(question), requestedSchema: requestedSchema(question) }) },
      requestState,
    });
    throw new ConsentPending();
  }
}

/** The channel for one tools/call, or undefined when the client did not declare elicitation. */
export function elicitationChannel(server: McpServer, era: 'legacy' | 'modern' | undefined, ctx: ServerContext, timeoutMs: number): (PromptChannel & { pending?: InputRequiredResult }) | undefined {
  if (era === 'modern') {
    const caps = (ctx.mcpReq.envelope as Record<string, { elicitation?: unknown } | undefined> | undefined)?.[CLIENT_CAPABILITIES_META_KEY];
    return caps?.elicitation ? new RoundTripElicitationChannel(ctx, timeoutMs) : undefined;
  }
  return server.server.getClientCapabilities()?.elicitation ? new PushElicitationChannel(ctx) : undefined;
}
