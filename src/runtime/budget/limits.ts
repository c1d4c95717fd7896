import type { LimitName, RunLimits } from '../contract/limits.js';
import { LimitsError } from './errors.js';

/** Every limit a run may have, in the order a budget checks them. */
export const LIMIT_NAMES: readonly LimitName[] = ['maxDurationMs', 'maxToolCalls', 'maxTokens', 'maxCostUsd'];

/**
 * The limits of one run: the agent's (`AgentConfig.limits`), each overridden by the run's own when
 * given there. Checked here, so a bad value is refused before the run queues (`LimitsError`).
 * Undefined when neither names any.
 */
export function runLimits(config: RunLimits | undefined, run: RunLimits | undefined): RunLimits | undefined {
  if (config === undefined && run === undefined) return undefined;
  const merged: RunLimits = { ...checkLimits(config, 'config'), ...checkLimits(run, 'run') };
  return Object.keys(merged).length === 0 ? undefined : merged;
}

function checkLimits(raw: unknown, where: string): RunLimits {
  if (raw === undefined) return {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new LimitsError(`the ${where}'s limits must be an object`);
  const limits: RunLimits = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!LIMIT_NAMES.includes(key as LimitName))
      throw new LimitsError(`unknown limit ${JSON.stringify(key)} (known: ${LIMIT_NAMES.join(', ')})`);
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new LimitsError(`${key} must be a positive finite number, got ${JSON.stringify(value) ?? String(value)}`);
    }
    if (key === 'maxToolCalls' || key === 'maxTokens') {
      if (!Number.isInteger(value)) throw new LimitsError(`${key} must be a whole number, got ${value}`);
    }
    limits[key as LimitName] = value;
  }
  return limits;
}
