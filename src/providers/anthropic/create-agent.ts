import type { ModelInvoker } from '../../runtime/contract/model.js';
import { defineConductor } from '../../runtime/agent/definition.js';
import { AgentConfigError } from '../../runtime/agent/errors.js';
import type { Agent, AgentConfig, AgentDefinition, ConductorDeps } from '../../runtime/agent/types.js';
import { IndusagiError, errorMessage } from '../../errors/index.js';
import type { AnthropicClientLike } from './client.js';
import { DEMO_MODEL_CARD, DEMO_MODEL_ID } from '../demo/card/index.js';
import { ANTHROPIC } from './cache.js';
import { demoChosen } from './demo-switch.js';
import { lazyAnthropicInvoker, lazyClaude } from './model.js';

/** The conductor's deps, and the Anthropic client for the default model. */
export type AgentDeps = ConductorDeps & {
  /** Any Anthropic-compatible client (`new Anthropic()`, `new AnthropicBedrock()`) for Claude, the default model. */
  client?: AnthropicClientLike;
};

const MISSING_KEY_REMEDY =
  'Set it; or pass `deps.client` (an Anthropic client with its own credentials); or give another provider’s model as `model`: ' +
  "createOpenAIInvoker(new OpenAI(), { model: 'gpt-5.4-mini' }) from indusagi/openai (reads OPENAI_API_KEY), or fromAiSdk(model) " +
  'from indusagi/ai-sdk (any AI SDK provider, with its own key variable).';

/**
 * An agent defined once (`defineConductor`, see `AgentDefinition`) with Claude as the default model: `config.model` is an invoker of any
 * provider (`fromAiSdk(...)`, `createOpenAIInvoker(client, { model })`, `anthropic(...)`,
 * `fallbackModels([...])`), or an id, called through `deps.invokeModel` when given and else as Claude,
 * through `deps.client` or `new Anthropic()` (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`). This file is
 * where the package wires the vendor in, and it loads `@anthropic-ai/sdk` only on Claude's first call,
 * so importing it costs no SDK.
 *
 * With `INDUSAGI_MODEL=demo` in the environment every agent talks to the offline demo model instead
 * (`demoModel()`, in process: no key, no network), whatever model its config names, unless its deps
 * bring their own (`client`, `invokeModel`) or its model is the demo model already (its `modelId`).
 *
 * Throws `MissingApiKeyError` (an `AgentConfigError`) when Claude would be called through
 * `new Anthropic()` and the environment holds no Anthropic credentials, and `AgentConfigError` for
 * `deps.client` beside another model, for the `cache`/`cacheTtl` shorthands (options of the Anthropic
 * model now: `anthropic(model, { cacheTtl })` or `providerOptions.anthropic`), and for whatever
 * `defineConductor` refuses. Open a conversation with `.open({ sessionId })`, or run one prompt with `.run(prompt)`.
 */
export function defineAgent(config: AgentConfig, deps: AgentDeps = {}): AgentDefinition {
  const { client, ...rest } = deps ?? {};
  refuseMovedOptions(config);
  if (demoChosen(process.env) && client === undefined && rest.invokeModel === undefined && !onDemoModel(config)) {
    // The one switch that points any agent at the offline demo model, whatever model its config names.
    // A `deps.client` or `deps.invokeModel` is a transport the program chose for itself (a scripted test
    // server, `startAnthropicServer().client()`), so it is kept: the switch is for trying code without a
    // key, and a program that brought its own model needs none. So is a model that is the demo model
    // already, wrapped as the program needs (recorded, replayed, counted): replacing it would drop the
    // wrapper, and the program's output with it.
    return defineConductor({ ...config, model: lazyDemoModel() }, rest);
  }
  const model = config?.model;
  if (typeof model !== 'string' || rest.invokeModel !== undefined) {
    if (client !== undefined) {
      throw new AgentConfigError(
        '`deps.client` is for Claude, the default model, but the agent has another model (an invoker as `model` or `deps.invokeModel`); drop one.',
      );
    }
    return defineConductor(config, rest);
  }
  return defineConductor(config, { ...rest, invokeModel: defaultModel(model, client) });
}

/**
 * One conversation of the agent `defineAgent(config, deps)` defines: `defineAgent(config, deps).open()`.
 * Throws what `defineAgent` throws.
 */
export function createAgent(config: AgentConfig, deps: AgentDeps = {}): Agent {
  return defineAgent(config, deps).open();
}

/** True when the config's model is the demo model, by its id: `demoModel()` and the invokers made over it carry it. */
function onDemoModel(config: AgentConfig): boolean {
  const model = config?.model;
  return (typeof model === 'string' ? model : model?.modelId) === DEMO_MODEL_ID;
}

/** Claude, model `model`, through `client` or the `new Anthropic()` made on its first call. */
function defaultModel(model: string, client: AnthropicClientLike | undefined): ModelInvoker {
  try {
    return lazyClaude(model, client === undefined ? {} : { client }, MISSING_KEY_REMEDY);
  } catch (error) {
    if (!IndusagiError.isInstance(error) || AgentConfigError.isInstance(error)) throw error;
    throw new AgentConfigError(errorMessage(error), { cause: error });
  }
}

/** `cache` and `cacheTtl` were `createAgent` shorthands; now Anthropic's own options, so a config that still sets them is told where they went. */
function refuseMovedOptions(config: AgentConfig): void {
  if (typeof config !== 'object' || config === null) return;
  for (const key of ['cache', 'cacheTtl']) {
    const value = (config as Record<string, unknown>)[key];
    if (value === undefined) continue;
    throw new AgentConfigError(
      `\`${key}\` is an option of the Anthropic model, not of the agent: anthropic(model, { ${key}: ${JSON.stringify(value)} }) ` +
        `from indusagi/anthropic, or providerOptions: { anthropic: { ${key}: ${JSON.stringify(value)} } }.`,
    );
  }
}

/**
 * `demoModel()`, loaded on its first call (the demo switch's model, for `createAgent` and `runAgent`): it reaches the request body through the Anthropic invoker's
 * code, which imports a piece of the SDK, and creating an agent loads no SDK (tests/entries/vendor-free).
 */
export function lazyDemoModel(): ModelInvoker {
  const invoke = lazyAnthropicInvoker(() => import('./demo-model.js').then((demo) => demo.demoModel()));
  return Object.assign(invoke, { provider: ANTHROPIC, modelId: DEMO_MODEL_ID, card: DEMO_MODEL_CARD });
}
