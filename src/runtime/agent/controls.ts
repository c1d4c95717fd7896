import type { ModelControls, ModelInvoker } from '../contract/model.js';
import type { RunControls } from '../loop/controls.js';
import type { LoopTools } from '../loop/types.js';
import { IndusagiError, errorMessage } from '../../errors/index.js';
import { ModelControlsError } from './errors.js';

const KEYS = ['temperature', 'topP', 'stopSequences', 'toolChoice', 'thinking'] as const;

/** Whether `override` sets any control: a run that sets none uses the agent's, checked once. */
export function overridesControls(override: ModelControls): boolean {
  for (const key of KEYS) if (override[key] !== undefined) return true;
  return false;
}

/**
 * The controls a run uses: the config's, each overridden by the `submit`'s when given there, checked
 * (`ModelControlsError`) by the rules every model shares and then by the invoker's own
 * (`checkControls`). Runs before anything else of a run, or when the agent is created for the config.
 */
export function resolveControls(
  config: ModelControls,
  override: ModelControls | undefined,
  tools: LoopTools,
  invoke: ModelInvoker,
  maxOutputTokens: number,
): RunControls {
  const merged: ModelControls = {};
  for (const key of KEYS) {
    const value = override?.[key] !== undefined ? override[key] : config[key];
    if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  checkShared(merged, tools);
  const { thinking, ...rest } = merged;
  const controls: RunControls = thinking === false || thinking === undefined ? rest : { ...rest, thinking };
  try {
    invoke.checkControls?.(controls, { maxOutputTokens });
  } catch (error) {
    if (!IndusagiError.isInstance(error) || ModelControlsError.isInstance(error)) throw error;
    throw new ModelControlsError(errorMessage(error), { cause: error });
  }
  return controls;
}

function checkShared(controls: ModelControls, tools: LoopTools): void {
  const { temperature, topP, stopSequences, toolChoice, thinking } = controls;
  if (temperature !== undefined && !(typeof temperature === 'number' && temperature >= 0 && temperature <= 2)) {
    throw new ModelControlsError(`\`temperature\` must be a number from 0 to 2, got ${String(temperature)}.`);
  }
  if (topP !== undefined && !(typeof topP === 'number' && topP > 0 && topP <= 1)) {
    throw new ModelControlsError(`\`topP\` must be a number above 0 and at most 1, got ${String(topP)}.`);
  }
  if (stopSequences !== undefined && !(Array.isArray(stopSequences) && stopSequences.every((s) => typeof s === 'string' && s !== ''))) {
    throw new ModelControlsError('`stopSequences` must be an array of non-empty strings.');
  }
  if (toolChoice !== undefined && toolChoice !== 'auto' && toolChoice !== 'any' && toolChoice !== 'none') {
    const name = (toolChoice as { tool?: unknown } | null)?.tool;
    if (typeof name !== 'string') throw new ModelControlsError('`toolChoice` must be "auto", "any", "none" or { tool: name }.');
    if (!tools.has(name)) throw new ModelControlsError(`\`toolChoice\` names the tool "${name}", which the agent does not have.`);
  }
  if (thinking !== undefined && thinking !== false) {
    const budget = (thinking as { budgetTokens?: unknown } | null)?.budgetTokens;
    if (!(Number.isInteger(budget) && (budget as number) >= 1)) {
      throw new ModelControlsError(`\`thinking\` must be false or { budgetTokens: a positive integer }, got ${JSON.stringify(thinking)}.`);
    }
  }
}
