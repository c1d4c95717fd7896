import type { ModelCard, ModelInvoker } from '../contract/model.js';
import type { ToolDefinition } from '../contract/tool.js';
import { resolveModel } from '../models/resolve.js';
import { defineLoopTools } from '../loop/tools.js';
import type { InputCheck, LoopTools } from '../loop/types.js';
import type { RunControls } from '../loop/controls.js';
import { resolveControls } from './controls.js';
import { IndusagiError, errorMessage } from '../../errors/index.js';
import { AgentConfigError } from './errors.js';
import type { AgentConfig, ConductorDeps } from './types.js';
import { turnProblem } from '../store/records.js';
import { checkToolInput, compileToolInput, type ToolInputCheck } from '../tools/tool-input.js';
import type { CompiledSchema } from '../../schema/index.js';

/** Model calls one run may make before it faults with `max_steps`. */
export const DEFAULT_MAX_STEPS = 64;

export type AgentSettings = { card: ModelCard; maxSteps: number; tools: LoopTools; controls: RunControls; invoke: ModelInvoker };

/**
 * Checks `config` against the invoker and fills in its defaults; every problem throws here, before any
 * run. `builtIn` are tools the conductor adds itself (history recall), under names the config's tools
 * must not take.
 */
export function resolveSettings(
  config: AgentConfig,
  invokeModel: ModelInvoker | undefined,
  builtIn: readonly ToolDefinition[] = [],
): AgentSettings {
  if (typeof config?.model !== 'string' || config.model.trim() === '')
    throw new AgentConfigError('`model` must be a non-empty model id or a ModelInvoker.');
  if (typeof invokeModel !== 'function')
    throw new AgentConfigError('`invokeModel` must be a ModelInvoker function (or give the invoker as `model`).');
  for (const key of ['maxSteps', 'maxOutputTokens', 'contextWindow'] as const) {
    const value = config[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      throw new AgentConfigError(`\`${key}\` must be a positive integer, got ${String(value)}.`);
    }
  }
  const context = config.context as Partial<Record<string, unknown>> | undefined;
  if (context !== undefined && !['compact', 'prepare', 'handle', 'commit'].every((method) => typeof context?.[method] === 'function')) {
    throw new AgentConfigError('`context` must be a ContextManager (see createContextManager).');
  }
  const options = config.providerOptions;
  if (
    options !== undefined &&
    (typeof options !== 'object' || options === null || Object.values(options).some((value) => typeof value !== 'object' || value === null))
  ) {
    throw new AgentConfigError('`providerOptions` must map provider ids to option objects, e.g. { anthropic: { cacheTtl: "1h" } }.');
  }
  try {
    invokeModel.checkOptions?.(options);
  } catch (error) {
    if (!IndusagiError.isInstance(error)) throw error;
    throw new AgentConfigError(errorMessage(error), { cause: error });
  }
  checkHistory(config.history);
  const { card } = asConfigError(() =>
    resolveModel(config.model, invokeModel, { contextWindow: config.contextWindow, maxOutputTokens: config.maxOutputTokens }),
  );
  const tools = toolsOf([...(config.tools ?? []), ...builtIn]);
  let controls: RunControls;
  try {
    controls = resolveControls(config, undefined, tools, invokeModel, card.maxOutputTokens);
  } catch (error) {
    if (!IndusagiError.isInstance(error)) throw error;
    throw new AgentConfigError(errorMessage(error), { cause: error });
  }
  return { card, maxSteps: config.maxSteps ?? DEFAULT_MAX_STEPS, tools, controls, invoke: invokeModel };
}

/**
 * An agent's model, described in one place: `config.model` is its id (called through `deps.invokeModel`)
 * or the invoker itself, which carries its id and card. Returns the config with `model` as the id and
 * the deps with `invokeModel` as the invoker, so everything after (telemetry, settings, the loop) sees one
 * shape; a config already in that shape comes back as it was. Throws `AgentConfigError` for an invoker
 * given twice (as `model` and as `deps.invokeModel`), an invoker that does not say which model it calls,
 * or an id its invoker is not built for.
 */
export function bindModel<Config extends AgentConfig, Deps extends ConductorDeps>(
  config: Config,
  deps: Deps | undefined,
): { config: Config; deps: Deps } {
  const given = (deps ?? {}) as Deps;
  if (typeof config !== 'object' || config === null) return { config, deps: given };
  const model = config.model;
  if (typeof model === 'function') {
    if (given.invokeModel !== undefined && given.invokeModel !== model) {
      throw new AgentConfigError('The model is given twice: as `model` (an invoker) and as `deps.invokeModel`; give it once.');
    }
    const { modelId } = asConfigError(() => resolveModel(model));
    return { config: { ...config, model: modelId }, deps: { ...given, invokeModel: model } };
  }
  if (typeof model === 'string' && typeof given.invokeModel === 'function') asConfigError(() => resolveModel(model, given.invokeModel));
  return { config, deps: given };
}

/** Runs `check`, turning the typed error of a model or card that cannot be used into the config's. */
function asConfigError<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    if (!IndusagiError.isInstance(error)) throw error;
    throw new AgentConfigError(errorMessage(error), { cause: error });
  }
}

function checkHistory(history: AgentConfig['history']): void {
  if (history === undefined || typeof history === 'boolean') return;
  if (typeof history !== 'object' || history === null) throw new AgentConfigError('`history` must be true, false or an options object.');
  for (const key of ['k', 'excerptChars', 'readChars'] as const) {
    const value = history[key];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1))
      throw new AgentConfigError(`\`history.${key}\` must be a positive integer, got ${String(value)}.`);
  }
}

/**
 * `deps.messages` must be turns, and cannot stand beside a store that keeps the history itself; and
 * `deps.store` must keep sessions, not long-term memory (the two are easy to mix up by name).
 */
export function checkMessages(deps: ConductorDeps): void {
  const store = deps.store as Partial<Record<string, unknown>> | undefined;
  if (typeof store?.search === 'function' && typeof store.save === 'function') {
    throw new AgentConfigError(
      '`deps.store` keeps the agent’s sessions (a SessionStore, MemorySessionStore or PostgresSessionStore), but this is a ' +
        'long-term memory store (createMemoryStore(), PostgresMemoryStore), which gives a context manager facts to recall: ' +
        'pass it to memorySource(...) in config.context instead.',
    );
  }
  const messages = deps.messages;
  if (messages === undefined) return;
  if (deps.store !== undefined)
    throw new AgentConfigError('Pass either `messages` (a history you keep) or a `store` (which keeps it), not both.');
  if (!Array.isArray(messages)) throw new AgentConfigError(`\`messages\` must be an array of turns, got ${typeof messages}.`);
  messages.forEach((turn, index) => {
    const problem = turnProblem(turn);
    if (problem !== null) throw new AgentConfigError(`\`messages[${index}]\` is not a turn: ${problem}.`);
  });
}

/** The tools as the loop runs them: each input schema compiled once, every call checked against it before `execute`. */
function toolsOf(definitions: readonly ToolDefinition[]): LoopTools {
  const byName = new Map<string, ToolDefinition>();
  const inputs = new Map<string, CompiledSchema>();
  for (const definition of definitions) {
    if (typeof definition?.name !== 'string' || definition.name === '' || typeof definition.execute !== 'function') {
      throw new AgentConfigError('Every tool needs a non-empty `name` and an `execute` function.');
    }
    byName.set(definition.name, definition);
    try {
      inputs.set(definition.name, compileToolInput(definition));
    } catch (error) {
      if (!IndusagiError.isInstance(error)) throw error;
      throw new AgentConfigError(errorMessage(error), { cause: error });
    }
  }
  return defineLoopTools({
    tools: definitions.map((definition) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: inputs.get(definition.name)!.jsonSchema,
    })),
    execute: (name, input, ctx) => byName.get(name)!.execute(input, ctx),
    needsApproval: (name) => byName.get(name)?.needsApproval === true,
    idempotent: (name) => byName.get(name)?.idempotent === true,
    resumable: (name) => byName.get(name)?.resumable,
    check(name, input) {
      const checked = checkToolInput(name, inputs.get(name)!, input);
      return checked instanceof Promise ? checked.then(toInputCheck) : toInputCheck(checked);
    },
  });
}

function toInputCheck(checked: ToolInputCheck): InputCheck {
  return checked.ok ? checked : { ok: false, message: checked.error.message };
}
