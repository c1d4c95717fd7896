import type { AgentConfig } from '../contract/agent.js';
import type { ModelCard } from '../contract/model.js';
import type { ToolDefinition } from '../contract/tool.js';
import { modelCard } from '../models/cards.js';
import { defineLoopTools } from '../loop/tools.js';
import type { LoopTools } from '../loop/types.js';
import { AgentConfigError } from './errors.js';
import { cacheSettingsProblem } from '../../providers/anthropic/cache.js';

/** Model calls one run may make before it faults with `max_steps`. */
export const DEFAULT_MAX_STEPS = 64;

export type AgentSettings = { card: ModelCard; maxSteps: number; tools: LoopTools };

/** Checks `config` and fills in its defaults; every problem throws here, before any run. */
export function resolveSettings(config: AgentConfig): AgentSettings {
  if (typeof config?.model !== 'string' || config.model.trim() === '') throw new AgentConfigError('`model` must be a non-empty model id.');
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
  const cacheProblem = cacheSettingsProblem(config.cache, config.cacheTtl);
  if (cacheProblem !== null) throw new AgentConfigError(`${cacheProblem}.`);
  const card = modelCard(config.model, { contextWindow: config.contextWindow, maxOutputTokens: config.maxOutputTokens });
  return { card, maxSteps: config.maxSteps ?? DEFAULT_MAX_STEPS, tools: toolsOf(config.tools ?? []) };
}

function toolsOf(definitions: readonly ToolDefinition[]): LoopTools {
  const byName = new Map<string, ToolDefinition>();
  for (const definition of definitions) {
    if (typeof definition?.name !== 'string' || definition.name === '' || typeof definition.execute !== 'function') {
      throw new AgentConfigError('Every tool needs a non-empty `name` and an `execute` function.');
    }
    byName.set(definition.name, definition);
  }
  return defineLoopTools({
    tools: definitions,
    execute: (name, input, ctx) => byName.get(name)!.execute(input, ctx),
    needsApproval: (name) => byName.get(name)?.needsApproval === true,
  });
}
