import type Anthropic from '@anthropic-ai/sdk';
import type { CompactionPolicy } from '../../runtime/contract/compaction.js';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { createConductor } from '../../runtime/agent/create-conductor.js';
import { ModelCallError, RunFault } from '../../runtime/loop/errors.js';
import type { LoopHooks } from '../../runtime/loop/types.js';
import { modelCard } from '../../runtime/models/cards.js';
import type { CompletedTurn, ContextManager } from '../../context/types.js';
import type { MemoryStore, RecallOptions } from '../../memory/types.js';
import { agentRunParts } from '../../parts/agent-run.js';
import type { AgentPart } from '../../parts/types.js';
import type { LazyToolset } from '../../tools/lazy-toolset.js';
import type { AnthropicToolSpec, ExecuteContext } from '../../tools/toolset.js';
import { errorMessage } from '../../errors/index.js';
import { plainJsonSchema } from '../../schema/index.js';
import type { CacheMode, CacheTtl } from './cache.js';
import type { AnthropicClientLike } from './client.js';
import { RunAgentOptionsError } from './errors.js';
import { createAnthropicInvoker } from './invoker.js';
import { standaloneContext, standaloneParts } from './standalone-context.js';
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
  /** Appended as a user turn after `messages`. Without it the loop picks up where `messages` end. */
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
  /** Condense the conversation when it nears the model's window, as `createAgent`'s `compaction` does. Default off. */
  compaction?: CompactionPolicy;
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
 * tool part per tool call (with `approvalId` when the toolset holds the call for approval). It is the
 * conductor over the caller's `messages`, streamed through the one RunEvent -> AgentPart translation.
 * The client's own errors end the generator unchanged; an abort ends it with `RunAbortedError`, the step
 * cap with `MaxStepsError`. Leaving the loop early (`break`) aborts the run.
 */
export async function* runAgent(opts: RunAgentOptions): AsyncGenerator<AgentPart> {
  const specs = opts.tools ?? [];
  if (typeof opts.client?.messages?.stream !== 'function')
    throw new RunAgentOptionsError('`client` must be an Anthropic client (client.messages.stream).');
  if (typeof opts.model !== 'string' || opts.model === '') throw new RunAgentOptionsError('`model` must be a non-empty model id.');
  if (specs.length > 0 && typeof opts.execute !== 'function')
    throw new RunAgentOptionsError('`execute` is required when `tools` are given.');
  const maxSteps = opts.maxSteps ?? RUN_AGENT_DEFAULT_MAX_STEPS;
  if (!(Number.isInteger(maxSteps) && maxSteps >= 1))
    throw new RunAgentOptionsError(`\`maxSteps\` must be a positive integer, got ${String(maxSteps)}.`);
  if (opts.maxTokens !== undefined && !(Number.isInteger(opts.maxTokens) && opts.maxTokens >= 1)) {
    throw new RunAgentOptionsError(`\`maxTokens\` must be a positive integer, got ${String(opts.maxTokens)}.`);
  }
  // Caching is the Anthropic model's own option: `cache`/`cacheTtl` go to the invoker, as its defaults.
  const own = { ...(opts.cache !== undefined && { cache: opts.cache }), ...(opts.cacheTtl !== undefined && { cacheTtl: opts.cacheTtl }) };
  let invokeModel: ModelInvoker;
  try {
    invokeModel = createAnthropicInvoker(opts.client, { model: opts.model, ...own });
  } catch (error) {
    throw new RunAgentOptionsError(`${errorMessage(error)}.`);
  }
  const history = opts.messages ? fromMessageParams(opts.messages) : [];
  const card = modelCard(opts.model, { maxOutputTokens: opts.maxTokens });
  const execute = opts.execute;
  const tools: ToolDefinition[] = specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    // Checked as the JSON Schema it is: `execute` (a Toolset's, say) may check again with the tool's own schema.
    inputSchema: plainJsonSchema(spec.input_schema),
    execute: (input, ctx) => execute!(spec.name, input, ctx),
  }));

  const agent = createConductor(
    {
      model: opts.model,
      system: opts.system,
      tools,
      maxSteps,
      maxOutputTokens: card.maxOutputTokens,
      sequential: opts.sequential,
      compaction: opts.compaction,
      context: opts.context ?? standaloneContext({ ...opts, contextWindow: card.contextWindow, maxOutputTokens: card.maxOutputTokens }),
    },
    { invokeModel, messages: history, hooks: opts.hooks },
  );
  const asParts = opts.context !== undefined ? (part: AgentPart): AgentPart[] => [part] : standaloneParts;

  const controller = new AbortController();
  const signal = opts.signal ? AbortSignal.any([controller.signal, opts.signal]) : controller.signal;
  const prompt = opts.prompt;
  const start = () => (prompt !== undefined ? agent.submit(prompt, { signal }) : agent.continue({ signal }));
  try {
    for await (const part of agentRunParts(agent, start)) yield* asParts(part);
  } catch (error) {
    throw RunFault.isInstance(error) ? reason(error) : error;
  } finally {
    // A consumer that stops early (break, return, throw) ends the run; after a normal end this does nothing.
    controller.abort();
    await agent.close();
  }
}

/** What `runAgent` callers catch: the failure behind the fault, and the SDK's own error behind a failed call. */
function reason(fault: RunFault): unknown {
  const cause = fault.cause;
  return ModelCallError.isInstance(cause) && cause.cause !== undefined ? cause.cause : (cause ?? fault);
}
