import type { RunEvent } from '../runtime/contract/events.js';
import type { GuardrailTrip } from '../runtime/contract/guardrail.js';
import { isHeldApproval } from '../tools/approvals.js';
import { nestedApprovalId, partOfEvent } from '../parts/agent-run.js';
import type { AgentOwnPart } from '../parts/types.js';

/**
 * What a `data-agent` part holds: one part of a sub-agent's run (`agentTool`) and where it sits (see
 * `AgentNestedPart`). A page shows it under the tool part of `calls[0]`.
 */
export type AgentDataPart = { path: string[]; calls: string[]; part: AgentOwnPart };

/** The most chars of a sub-agent's text one `data-agent` part carries (a longer delta is cut into parts). */
export const NESTED_TEXT_CAP = 1024;

/** `text` in pieces of at most `cap` UTF-16 units, never cutting a surrogate pair in two. */
function pieces(text: string, cap: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + cap, text.length);
    const code = text.charCodeAt(end - 1);
    if (end < text.length && end - at > 1 && code >= 0xd800 && code <= 0xdbff) end -= 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}

/**
 * The chunks of the AI SDK's UI message stream protocol (v1, the `x-vercel-ai-ui-message-stream`
 * header) that an indusagi run produces: what `useChat` from `@ai-sdk/react` reads. Tool parts are
 * dynamic (`dynamic-tool` parts in the UI), since the page knows no tool types at compile time.
 */
export type UIMessageChunk =
  | { type: 'start'; messageId?: string }
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'tool-input-start'; toolCallId: string; toolName: string; dynamic: true }
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: unknown; dynamic: true }
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string }
  | { type: 'tool-output-available'; toolCallId: string; output: unknown; dynamic: true }
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; dynamic: true }
  | { type: 'tool-output-denied'; toolCallId: string }
  /**
   * A sub-agent's progress: `useChat` keeps one part per `id` and replaces its data as it changes, so
   * each nested tool call is one part (input, then output). A sub-agent's text comes as parts of its
   * own, each a delta of at most `NESTED_TEXT_CAP` chars, never replaced: a page joins consecutive
   * text parts of the same `calls` into the run of text they make.
   */
  | { type: 'data-agent'; id: string; data: AgentDataPart }
  /** The answer's JSON so far (`submit(prompt, { output })`): one data part, id `output`, replaced as it grows. */
  | { type: 'data-output'; id: 'output'; data: unknown }
  /** A guardrail tripped the run: a `data-guardrail` part of the message (its `data` the trip), before the run's `error`. */
  | { type: 'data-guardrail'; data: GuardrailTrip }
  | { type: 'error'; errorText: string }
  | { type: 'abort'; reason?: string }
  | { type: 'finish'; finishReason?: 'stop' | 'error' | 'other' };

/**
 * Turns one run's events into chunks, in order. A step is the model's reply and the tools it called:
 * text after tool results opens a new step, so the UI starts a new text part for it. `known` holds
 * the calls the page already shows (those it decided on), `denied` the calls the user rejected, whose
 * error results are sent as denials. A sub-agent's events become `data-agent` parts; a call of a
 * sub-agent that waits for approval is asked for on the tool part of the call it sits under, with the
 * id that decides it at the top.
 */
export class ChunkTranslator {
  private textId: string | null = null;
  private texts = 0;
  private toolsInStep = false;
  private nestedTexts = 0;
  private readonly announced: Set<string>;
  private readonly denied: Set<string>;

  constructor(
    private readonly messageId: string,
    known: Iterable<string> = [],
    denied: Iterable<string> = [],
  ) {
    this.announced = new Set(known);
    this.denied = new Set(denied);
  }

  /**
   * The chunks that open the stream and its first step. A new message's `start` carries its id; a
   * continuation's carries none, so the page appends to the message it has (a different id would
   * make it start over).
   */
  begin(newMessage: boolean): UIMessageChunk[] {
    return [newMessage ? { type: 'start', messageId: this.messageId } : { type: 'start' }, { type: 'start-step' }];
  }

  chunksOf(event: RunEvent): UIMessageChunk[] {
    switch (event.kind) {
      case 'text_delta': {
        if (event.delta === '') return [];
        const out: UIMessageChunk[] = [];
        if (this.textId === null) {
          if (this.toolsInStep) {
            out.push({ type: 'finish-step' }, { type: 'start-step' });
            this.toolsInStep = false;
          }
          this.textId = `${this.messageId}-text-${++this.texts}`;
          out.push({ type: 'text-start', id: this.textId });
        }
        out.push({ type: 'text-delta', id: this.textId, delta: event.delta });
        return out;
      }
      case 'tool_started':
        return [...this.closeText(), ...this.announce(event.callId, event.name, event.input)];
      case 'approval_requested':
        return [
          ...this.closeText(),
          ...this.announce(event.callId, event.name, event.input),
          { type: 'tool-approval-request', approvalId: event.approvalId, toolCallId: event.callId },
        ];
      case 'tool_finished': {
        // A held call's placeholder result: the approval request above already said what it needs.
        if (isHeldApproval(event.result)) return [];
        const out = [...this.closeText(), ...this.announce(event.callId, event.name, event.input)];
        if (this.denied.has(event.callId)) out.push({ type: 'tool-output-denied', toolCallId: event.callId });
        else if (event.isError)
          out.push({ type: 'tool-output-error', toolCallId: event.callId, errorText: String(event.result), dynamic: true });
        else out.push({ type: 'tool-output-available', toolCallId: event.callId, output: event.result ?? null, dynamic: true });
        return out;
      }
      case 'nested':
        return this.nested(event);
      case 'partial_output':
        return [{ type: 'data-output', id: 'output', data: event.value }];
      case 'guardrail_tripped':
        // A part of the message the page can show where the run stopped; text streamed before it was never accepted.
        return [...this.closeText(), { type: 'data-guardrail', data: event.trip }];
      default:
        return [];
    }
  }

  private nested(event: Extract<RunEvent, { kind: 'nested' }>): UIMessageChunk[] {
    const part = partOfEvent(event);
    if (part === null || part.type !== 'nested') return [];
    const { path, calls } = event;
    const where = calls.join('/');
    if (part.part.type === 'text') {
      // `useChat` replaces a data part whole, so a part holding the text so far would resend it with
      // each delta (bytes growing with the square of the text). Each delta is a part of its own
      // instead, cut at NESTED_TEXT_CAP chars: the page joins a sub-agent's consecutive text parts.
      const out: UIMessageChunk[] = [];
      for (const text of pieces(part.part.text, NESTED_TEXT_CAP))
        out.push({
          type: 'data-agent',
          id: `${this.messageId}-agent-text-${++this.nestedTexts}`,
          data: { path, calls, part: { type: 'text', text } },
        });
      return out;
    }
    const id = part.part.type === 'tool' ? `${where}/${part.part.callId}` : `${this.messageId}-agent-${++this.nestedTexts}`;
    const out: UIMessageChunk[] = [{ type: 'data-agent', id, data: { path, calls, part: part.part } }];
    if (event.event.kind === 'approval_requested') {
      out.push({ type: 'tool-approval-request', approvalId: nestedApprovalId(calls, event.event.approvalId), toolCallId: calls[0] });
    }
    return out;
  }

  /** The chunks that close the message: `finish` after a settled run, `error` or `abort` then `finish` after a failed one. */
  end(failure?: { aborted: boolean; message: string }): UIMessageChunk[] {
    const out: UIMessageChunk[] = [...this.closeText(), { type: 'finish-step' }];
    if (failure === undefined) return [...out, { type: 'finish', finishReason: 'stop' }];
    if (failure.aborted) return [...out, { type: 'abort', reason: failure.message }];
    return [...out, { type: 'error', errorText: failure.message }, { type: 'finish', finishReason: 'error' }];
  }

  private closeText(): UIMessageChunk[] {
    this.toolsInStep = true;
    if (this.textId === null) return [];
    const id = this.textId;
    this.textId = null;
    return [{ type: 'text-end', id }];
  }

  /**
   * A call, once, as the AI SDK's own streams announce one: `tool-input-start` opens its part, then
   * `tool-input-available` gives its whole input (the model's call is complete by the time it runs),
   * so the page shows it running until its output, approval request or error arrives.
   */
  private announce(callId: string, name: string, input: unknown): UIMessageChunk[] {
    if (this.announced.has(callId)) return [];
    this.announced.add(callId);
    return [
      { type: 'tool-input-start', toolCallId: callId, toolName: name, dynamic: true },
      { type: 'tool-input-available', toolCallId: callId, toolName: name, input: input ?? null, dynamic: true },
    ];
  }
}
