import type { ModelUsage } from '../contract/model.js';
import { InvalidUsageError } from './errors.js';

const COUNTS = ['inputTokens', 'outputTokens', 'cacheWriteTokens', 'cacheReadTokens'] as const;

/** Why `raw` is not a `ModelUsage`, or null when it is. */
export function usageProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return 'it is not an object';
  const usage = raw as Record<string, unknown>;
  for (const key of COUNTS) {
    if (!isCount(usage[key])) return `"${key}" must be a whole number >= 0, got ${JSON.stringify(usage[key]) ?? 'undefined'}`;
  }
  const write1h = usage.cacheWrite1hTokens;
  if (write1h !== undefined && !isCount(write1h)) return `"cacheWrite1hTokens" must be a whole number >= 0, got ${JSON.stringify(write1h)}`;
  return null;
}

/** Throws `InvalidUsageError` unless `raw` is a `ModelUsage`. */
export function assertUsage(raw: unknown): asserts raw is ModelUsage {
  const problem = usageProblem(raw);
  if (problem !== null) throw new InvalidUsageError(problem);
}

function isCount(value: unknown): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
