import Anthropic from '@anthropic-ai/sdk';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import { createConductor } from '../../runtime/agent/create-conductor.js';
import { AgentConfigError } from '../../runtime/agent/errors.js';
import type { Agent, AgentConfig, ConductorDeps } from '../../runtime/agent/types.js';
import { errorMessage } from '../../errors/index.js';
import { ANTHROPIC, anthropicOptions, type AnthropicProviderOptions } from './cache.js';
import type { AnthropicClientLike } from './client.js';
import { createAnthropicInvoker } from './invoker.js';

/**
 * `createAgent`'s config: the runtime's `AgentConfig`, plus `cache` and `cacheTtl` as shorthands for
 * `providerOptions.anthropic.cache`/`cacheTtl` (see docs/usage-and-caching.md).
 */
export type AnthropicAgentConfig = AgentConfig & AnthropicProviderOptions;

/** The conductor's deps with the model optional: without `invokeModel`, Claude through `client` (default `new Anthropic()`). */
export type AgentDeps = Omit<ConductorDeps, 'invokeModel'> & {
  invokeModel?: ModelInvoker;
  /** Any Anthropic-compatible client (`new Anthropic()`, `new AnthropicBedrock()`); used when `invokeModel` is absent. */
  client?: AnthropicClientLike;
};

/**
 * The conductor (`createConductor`) with Claude as its default model: this file is where the package
 * wires the vendor in, so the runtime itself never imports a provider. With neither `invokeModel` nor
 * `client`, calls go through `new Anthropic()`, so `ANTHROPIC_API_KEY` and `ANTHROPIC_BASE_URL` apply
 * (a missing key surfaces as a `model_error` fault on the first call, not here).
 */
export function createAgent(config: AnthropicAgentConfig, deps: AgentDeps = {}): Agent {
  const { client, invokeModel, ...rest } = deps ?? {};
  return createConductor(withShorthands(config), {
    ...rest,
    invokeModel: invokeModel ?? createAnthropicInvoker(client ?? new Anthropic()),
  });
}

/** Moves `cache`/`cacheTtl` into `providerOptions.anthropic`, checked whichever model the agent uses. */
function withShorthands(config: AnthropicAgentConfig): AgentConfig {
  if (typeof config !== 'object' || config === null) return config;
  const { cache, cacheTtl, ...rest } = config;
  if (cache === undefined && cacheTtl === undefined) return config;
  const own = { ...config.providerOptions?.[ANTHROPIC] };
  for (const [key, value] of [
    ['cache', cache],
    ['cacheTtl', cacheTtl],
  ] as const) {
    if (value === undefined) continue;
    if (own[key] !== undefined && own[key] !== value) {
      throw new AgentConfigError(
        `\`${key}\` and \`providerOptions.anthropic.${key}\` disagree (${JSON.stringify(value)} vs ${JSON.stringify(own[key])}); set one.`,
      );
    }
    own[key] = value;
  }
  const providerOptions = { ...config.providerOptions, [ANTHROPIC]: own };
  try {
    anthropicOptions(providerOptions);
  } catch (error) {
    throw new AgentConfigError(errorMessage(error), { cause: error });
  }
  return { ...rest, providerOptions };
}
