import type Anthropic from '@anthropic-ai/sdk';
import type { CompactionPolicy } from '../../runtime/contract/compaction.js';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import type { ToolContext, ToolDefinition } from '../../runtime/contract/tool.js';
import type { Turn } from '../../runtime/contract/turn.js';
import type { AgentConfig } from '../../runtime/agent/types.js';
import type { PrepareStep } from '../../runtime/contract/step.js';
import { modelCard } from '../../runtime/models/cards.js';
import type { ContextOptions } from '../../context/from-options.js';
import type { AnthropicToolSpec } from '../../tools/toolset.js';
import { errorMessage } from '../../errors/index.js';
import { plainJsonSchema } from '../../schema/index.js';
import type { CacheMode, CacheTtl } from './cache.js';
import { createAnthropicInvoker } from './invoker.js';
import type { AnthropicClientLike } from './client.js';
import { RunAgentOptionsError } from './errors.js';
import { fromMessageParams } from './wire.js';

/** Model calls one `runAgent` may make before it throws `MaxStepsError`. */
export const RUN_AGENT_DEFAULT_MAX_STEPS = 64;

/**
 * `runAgent`'s options, as the reference gives them. `context` (a `ContextManager`) owns recall, tool
 * loading, compaction and write-backs, its reports yielded as `context` parts; without it `memory`,
 * `recall`, `remember` and `lazyToolset` work on their own (see `ContextOptions`).
 */
export type RunAgentOptions = ContextOptions & {
  client: AnthropicClientLike;
  model: string;
  /** Tools in the Anthropic shape under their ORIGINAL names (e.g. `toToolset(definitions).tools`). */
  tools?: readonly AnthropicToolSpec[];
  /** Runs a tool by its original name (e.g. `toToolset(definitions).execute`). Required when `tools` is not empty. */
  execute?: (name: string, input: unknown, ctx: ToolContext) => unknown;
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
  /** Asked before every model call, after the condensation and context manager; see `PrepareStep`. */
  prepareStep?: PrepareStep;
  /** Condense the conversation when it nears the model's window, as `createAgent`'s `compaction` does. Default off. */
  compaction?: CompactionPolicy;
  /** Prompt caching: `auto` (default) places cache breakpoints on every call, `off` none. See docs/usage-and-caching.md. */
  cache?: CacheMode;
  /** TTL of the cache breakpoints: `5m` (the API's default) or `1h`. */
  cacheTtl?: CacheTtl;
};

/** The conductor's config for one `runAgent`, its window and output cap settled from the model card. */
export type RunAgentConfig = AgentConfig & { contextWindow: number; maxOutputTokens: number };

/**
 * Checks `opts` (throwing `RunAgentOptionsError` before any request for options that cannot work) and
 * translates them into the conductor's config and the history it starts from: the Anthropic-shaped
 * `tools` and `execute` become `ToolDefinition`s, `messages` become turns.
 */
export function runAgentSettings(opts: RunAgentOptions): { config: RunAgentConfig; invokeModel: ModelInvoker; messages: Turn[] } {
  const specs = opts.tools ?? [];
  if (typeof opts.client?.messages?.stream !== 'function')
    throw new RunAgentOptionsError('`client` must be an Anthropic client (client.messages.stream).');
  if (typeof opts.model !== 'string' || opts.model === '') throw new RunAgentOptionsError('`model` must be a non-empty model id.');
  const execute = opts.execute;
  if (specs.length > 0 && typeof execute !== 'function') throw new RunAgentOptionsError('`execute` is required when `tools` are given.');
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
  const card = modelCard(opts.model, { maxOutputTokens: opts.maxTokens });
  const tools: ToolDefinition[] = specs.map((spec) => ({
    name: spec.name,
    description: spec.description,
    // Checked as the JSON Schema it is: `execute` (a Toolset's, say) may check again with the tool's own schema.
    inputSchema: plainJsonSchema(spec.input_schema),
    execute: (input, ctx) => execute!(spec.name, input, ctx),
  }));
  const config: RunAgentConfig = {
    model: opts.model,
    system: opts.system,
    tools,
    maxSteps,
    contextWindow: card.contextWindow,
    maxOutputTokens: card.maxOutputTokens,
    sequential: opts.sequential,
    compaction: opts.compaction,
  };
  return { config, invokeModel, messages: opts.messages ? fromMessageParams(opts.messages) : [] };
}
