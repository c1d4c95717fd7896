import type { ModelInvoker, ModelRequest, ModelUsage } from '../contract/model.js';
import { COMPACTION_PREFIX, type Turn } from '../contract/turn.js';
import { modelCard } from '../models/index.js';
import { DEFAULT_TRIGGER_RATIO, assertCount } from './policy.js';
import { CHARS_PER_TOKEN, TURN_SURCHARGE_TOKENS, estimateTextTokens } from './estimate.js';
import { CompactionInputError, ContextOverflowError, SummarizerError } from './errors.js';
import { errorMessage } from '../../errors/base.js';
import { stripCompactionPrefix } from './summary-turn.js';
import { renderForSummary } from './transcript.js';

/** The longest summary asked for by default, in tokens. */
export const DEFAULT_SUMMARY_MAX_TOKENS = 4_096;

/** Below this many transcript characters a summary would be guesswork; refuse instead. */
const MIN_TRANSCRIPT_CHARS = 1_000;

export type SummarizeOptions = {
  /** The model that writes the summary (normally the agent's own model). */
  model: string;
  /** Cap on the summary, in tokens. Default: the smaller of 4096 and the model card's output cap. */
  maxOutputTokens?: number;
  /**
   * Estimated tokens the summarizer request may hold, system prompt included. Default: the model's
   * window × 0.8 minus `maxOutputTokens`, i.e. the request obeys the same "fits" rule as any call.
   */
  inputBudgetTokens?: number;
  signal?: AbortSignal;
};

export type SummaryReply = { text: string; usage: ModelUsage | undefined };

/**
 * Compacts `turns` into a summary body (without the `[condensed earlier context]` prefix) by one
 * model call with no tools. Earlier summaries among `turns` are handed over separately, labelled to
 * be carried forward. Throws `SummarizerError` when the call rejects, the model refuses, stops early
 * or answers with nothing; an abort of `signal` rejects with the invoker's own abort error.
 */
export async function summarize(turns: readonly Turn[], invokeModel: ModelInvoker, opts: SummarizeOptions): Promise<string> {
  return (await requestSummary(turns, invokeModel, opts)).text;
}

/** `summarize`, also returning the token usage the call reported. */
export async function requestSummary(turns: readonly Turn[], invokeModel: ModelInvoker, opts: SummarizeOptions): Promise<SummaryReply> {
  const request = buildSummaryRequest(turns, opts);
  let reply;
  try {
    reply = await invokeModel(request);
  } catch (cause) {
    // An abort is the caller's decision, not a summarizer fault: let it through as it came.
    if (opts.signal?.aborted) throw cause;
    throw new SummarizerError(`the summarizer call failed: ${errorMessage(cause)}`, { cause });
  }
  if (reply?.stopReason === 'refusal') {
    throw new SummarizerError('the model refused to summarize the earlier context', { stopReason: 'refusal' });
  }
  if (reply?.stopReason !== 'end_turn' && reply?.stopReason !== 'stop_sequence') {
    throw new SummarizerError(`the summary ended early (stop reason ${String(reply?.stopReason)}); a partial summary would lose context`, {
      stopReason: reply?.stopReason,
    });
  }
  const blocks = Array.isArray(reply.turn?.blocks) ? reply.turn.blocks : [];
  const text = stripCompactionPrefix(blocks.map((b) => (b.kind === 'text' ? b.text : '')).join(''));
  if (text === '') throw new SummarizerError('the summarizer answered with no text', { stopReason: reply.stopReason });
  return { text, usage: reply.usage };
}

/** The request `summarize` sends; exported for callers that want to inspect or log it. */
export function buildSummaryRequest(turns: readonly Turn[], opts: SummarizeOptions): ModelRequest {
  if (!Array.isArray(turns) || turns.length === 0) throw new CompactionInputError('summarize needs at least one turn');
  if (typeof opts?.model !== 'string' || opts.model === '') throw new CompactionInputError('summarize needs a model id');
  const card = modelCard(opts.model);
  const maxOutputTokens = opts.maxOutputTokens ?? Math.min(DEFAULT_SUMMARY_MAX_TOKENS, card.maxOutputTokens);
  assertCount('maxOutputTokens', maxOutputTokens);
  const inputBudget = opts.inputBudgetTokens ?? Math.floor(card.contextWindow * DEFAULT_TRIGGER_RATIO) - maxOutputTokens;
  const system = systemPrompt(maxOutputTokens);

  const fixedTokens = estimateTextTokens(system) + estimateTextTokens(frame('', '')) + TURN_SURCHARGE_TOKENS;
  const maxChars = (inputBudget - fixedTokens) * CHARS_PER_TOKEN;
  if (maxChars < MIN_TRANSCRIPT_CHARS) {
    throw new ContextOverflowError(`the summarizer's budget of ${inputBudget} tokens leaves no room for the transcript`, {
      neededTokens: fixedTokens + Math.ceil(MIN_TRANSCRIPT_CHARS / CHARS_PER_TOKEN),
      limitTokens: inputBudget,
    });
  }
  const { carried, transcript } = renderForSummary(turns, maxChars);
  return {
    model: opts.model,
    system,
    messages: [{ role: 'user', blocks: [{ kind: 'text', text: frame(transcript, carried) }] }],
    tools: [],
    maxOutputTokens,
    // A one-off prompt: a cache write would cost more than plain input and never be read back.
    cacheable: false,
    purpose: 'summary',
    signal: opts.signal,
  };
}

function systemPrompt(maxOutputTokens: number): string {
  // About 0.75 words a token; asking for half of that leaves the cap as a margin, not a target.
  const words = Math.max(50, Math.floor(maxOutputTokens * 0.5));
  return [
    'You condense the earlier part of a working session between a user and an AI agent that uses tools.',
    'The agent will continue the work seeing only your summary followed by the most recent turns, so anything you leave out is lost to it.',
    '',
    'Write the summary under these headings, in this order:',
    'Goal: what the user wants overall, in their own terms.',
    'Constraints: requirements, preferences and limits set by the user or the environment.',
    'Progress: what has been done and found so far, including tool outcomes that matter.',
    'Decisions: choices made and why, so they are not revisited.',
    'Open items: what remains to do, pending questions, known problems.',
    'Identifiers: every exact file path, id, URL, name, command, number and value the remaining work still needs, copied verbatim.',
    '',
    'If a previous summary is given, merge it in: keep every fact and identifier from it that is still relevant, updated by what the transcript shows.',
    `Do not invent anything. Write plain text, at most about ${words} words. Do not begin with "${COMPACTION_PREFIX}".`,
  ].join('\n');
}

function frame(transcript: string, carried: string | null): string {
  const previous =
    carried === null
      ? ''
      : 'PREVIOUS SUMMARY, covering turns older than the transcript below. Carry forward everything in it that is still relevant; your summary replaces it.\n' +
        `<previous-summary>\n${carried}\n</previous-summary>\n\n`;
  return (
    previous +
    'TRANSCRIPT TO CONDENSE, oldest first. Long tool inputs and results are clipped where marked.\n' +
    `<transcript>\n${transcript}\n</transcript>\n\nWrite the summary now.`
  );
}
