import type Anthropic from '@anthropic-ai/sdk';
import type { AgentPart } from '../../parts/types.js';
import type { Turn } from '../../runtime/contract/turn.js';
import type { CacheMode, CacheTtl } from '../../runtime/contract/model.js';
import { modelCard } from '../../runtime/models/cards.js';
import { replaceContents, runLoop } from '../../runtime/loop/run-loop.js';
import { defineLoopTools } from '../../runtime/loop/tools.js';
import { ModelCallError } from '../../runtime/loop/errors.js';
import type { LoopEvent, LoopHooks } from '../../runtime/loop/types.js';
import { beginContextTurn, toModelTools, type ContextTurnHandle } from '../../runtime/loop/context-turn.js';
import { lastAssistantText, lastUserText } from '../../runtime/loop/batch.js';
import type { CompletedTurn, ContextManager } from '../../context/types.js';
import type { MemoryStore, RecallOptions } from '../../memory/types.js';
import type { AgentContextPart } from '../../parts/types.js';
import type { LazyToolset } from '../../tools/lazy-toolset.js';
import { standaloneContext, standaloneParts } from './standalone-context.js';
import { isPendingApproval, type AnthropicToolSpec, type ExecuteContext } from '../../tools/toolset.js';
import type { AnthropicClientLike } from './client.js';
import { cacheSettingsProblem } from './cache.js';
import { RunAgentOptionsError } from './errors.js';
import { createAnthropicInvoker } from './invoker.js';
import { PartQueue } from './part-queue.js';
import { fromMessageParams } from './wire.js';

/** Model calls one `runAgent` may make before it throws `MaxStepsError`. */
export const RUN_AGENT_DEFAULT_MAX_STEPS = 64;

export type RunAgentOptions = {
  client: AnthropicClientLike;
  model: string;
  /** Tools in the Anthropic shape under their ORIGINAL names (e.g. `toToolset(definitions).tools`). */
  tools?: readonly AnthropicToolSpec[];
  /** Runs a tool by its original name. Required when `tools` is not empty. */
  execute?: (name: string, input: unknown, ctx?: ExecuteContext) => unknown;
  /** Appended as a user turn after `messages`. */
  prompt?: string;
  /** The conversation so far; copied, never changed. */
  messages?: readonly Anthropic.MessageParam[];
  system?: string;
  /** Default 64. */
  maxSteps?: number;
  /** `max_tokens` of every call. Default: the model card's output cap (8192 for unknown models). */
  maxTokens?: number;
  /** Ends the run promptly: the request in flight is aborted, and the generator throws `RunAbortedError`. */
  signal?: AbortSignal;
  /** Run a step's tool calls one at a time instead of all at once. Results are in call order either way. */
  sequential?: boolean;
  /** Runs around every model call; see `LoopHooks`. */
  hooks?: LoopHooks;
  /**
   * A context manager owning recall, tool loading, compaction and write-backs for this turn; its
   * reports are yielded as `context` parts. With it, `memory`, `recall`, `remember` and `lazyToolset`
   * are ignored.
   */
  context?: ContextManager;
  /** Without `context`: recalls matching memory into the system prompt (a `memory` `recalled` part). */
  memory?: MemoryStore;
  /** Without `context`: how `memory` is searched. */
  recall?: RecallOptions;
  /** Without `context`: picks facts to save after the turn (one `memory` `saved` part per saved fact). */
  remember?: (turn: CompletedTurn) => string[] | Promise<string[]>;
  /** Without `context`: keeps the tool schemas out of context behind `search_tools`. */
  lazyToolset?: LazyToolset;
  /** Prompt caching: `auto` (default) places cache breakpoints on every call, `off` none. See docs/usage-and-caching.md. */
  cache?: CacheMode;
  /** TTL of the cache breakpoints: `5m` (the API's default) or `1h`. */
  cacheTtl?: CacheTtl;
};

/**
 * Runs the model-and-tool loop over an Anthropic client, yielding a text part per streamed delta and one
 * tool part per tool call (with `approvalId` when the tool answered `{ status: 'pending_approval' }`).
 * The client's own errors end the generator unchanged; an abort ends it with `RunAbortedError`, the step
 * cap with `MaxStepsError`. Leaving the loop early (`break`) aborts the run.
 */
export async function* runAgent(opts: RunAgentOptions): AsyncGenerator<AgentPart> {
  const specs = opts.tools ?? [];
  if (typeof opts.client?.messages?.stream !== 'function') throw new RunAgentOptionsError('`client` must be an Anthropic client (client.messages.stream).');
  if (typeof opts.model !== 'string' || opts.model === '') throw new RunAgentOptionsError('`model` must be a non-empty model id.');
  if (specs.length > 0 && typeof opts.execute !== 'function') throw new RunAgentOptionsError('`execute` is required when `tools` are given.');
  const maxSteps = opts.maxSteps ?? RUN_AGENT_DEFAULT_MAX_STEPS;
  if (!(Number.isInteger(maxSteps) && maxSteps >= 1)) throw new RunAgentOptionsError(`\`maxSteps\` must be a positive integer, got ${String(maxSteps)}.`);
  if (opts.maxTokens !== undefined && !(Number.isInteger(opts.maxTokens) && opts.maxTokens >= 1)) {
    throw new RunAgentOptionsError(`\`maxTokens\` must be a positive integer, got ${String(opts.maxTokens)}.`);
  }
  const cacheProblem = cacheSettingsProblem(opts.cache, opts.cacheTtl);
  if (cacheProblem !== null) throw new RunAgentOptionsError(`${cacheProblem}.`);
  const execute = opts.execute;
  const tools = defineLoopTools({
    tools: toModelTools(specs),
    execute: (name, input, ctx) => execute!(name, input, ctx),
  });
  const context: Turn[] = opts.messages ? fromMessageParams(opts.messages) : [];
  if (opts.prompt !== undefined) context.push({ role: 'user', blocks: [{ kind: 'text', text: opts.prompt }] });
  const card = modelCard(opts.model, { maxOutputTokens: opts.maxTokens });

  const manager =
    opts.context ??
    standaloneContext({ ...opts, contextWindow: card.contextWindow, maxOutputTokens: card.maxOutputTokens });
  const asParts = opts.context !== undefined ? (part: AgentContextPart): AgentPart[] => [part] : standaloneParts;
  let contextTurn: ContextTurnHandle | undefined;
  if (manager !== undefined) {
    contextTurn = await beginContextTurn({ manager, prompt: opts.prompt ?? lastUserText(context), messages: context, system: opts.system, tools });
    replaceContents(context, contextTurn.messages);
    for (const reported of contextTurn.prepared) yield* asParts(reported);
  }

  const controller = new AbortController();
  const signal = opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal;
  const parts = new PartQueue<AgentPart>();
  const inputs = new Map<string, unknown>();
  const emit = (event: LoopEvent): void => {
    if (event.kind === 'text_delta') parts.push({ type: 'text', text: event.delta });
    else if (event.kind === 'turn') {
      for (const block of event.turn.blocks) if (block.kind === 'tool_call') inputs.set(block.id, block.input);
    } else if (event.kind === 'tool_finished') {
      const part: AgentPart = { type: 'tool', name: event.name, callId: event.callId, input: inputs.get(event.callId), result: event.result };
      if (event.isError) part.isError = true;
      if (isPendingApproval(event.result)) part.approvalId = event.result.actionId;
      parts.push(part);
      if (contextTurn !== undefined) pushReports(contextTurn.takeParts(event.callId));
    }
  };
  const pushReports = (reports: AgentContextPart[]) => {
    for (const reported of reports) for (const part of asParts(reported)) parts.push(part);
  };
  const drive = async () => {
    await runLoop({
      model: opts.model,
      system: contextTurn?.system ?? opts.system,
      volatileSystem: contextTurn?.volatileSystem,
      cache: opts.cache,
      cacheTtl: opts.cacheTtl,
      maxOutputTokens: card.maxOutputTokens,
      maxSteps,
      context,
      invoke: createAnthropicInvoker(opts.client),
      tools: contextTurn?.tools ?? tools,
      sequential: opts.sequential,
      signal,
      hooks: opts.hooks,
      emit,
    });
    if (contextTurn !== undefined) pushReports(await contextTurn.finish(context, lastAssistantText(context)));
  };
  const run = drive().then(
    () => parts.close(),
    // The client's own error, as the SDK raised it: callers catch `Anthropic.APIError` and friends.
    (error: unknown) => parts.fail(ModelCallError.isInstance(error) && error.cause !== undefined ? error.cause : error),
  );
  try {
    yield* parts;
  } finally {
    // A consumer that stops early (break, return, throw) ends the run; after a normal end this does nothing.
    controller.abort();
    await run;
  }
}
