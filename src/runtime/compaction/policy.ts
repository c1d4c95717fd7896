import type { CompactionPolicy } from '../contract/compaction.js';
import { CompactionInputError } from './errors.js';

export const DEFAULT_TRIGGER_RATIO = 0.8;
export const DEFAULT_KEEP_RECENT = 8;

export type ResolvedCompactionPolicy = Required<CompactionPolicy>;

/** Fills in the defaults and refuses values that would make compaction meaningless or endless. */
export function resolveCompactionPolicy(policy: CompactionPolicy = {}): ResolvedCompactionPolicy {
  const triggerRatio = policy.triggerRatio ?? DEFAULT_TRIGGER_RATIO;
  const keepRecent = policy.keepRecent ?? DEFAULT_KEEP_RECENT;
  if (typeof triggerRatio !== 'number' || !Number.isFinite(triggerRatio) || triggerRatio <= 0 || triggerRatio > 1) {
    throw new CompactionInputError(`compaction.triggerRatio must be a number in (0, 1]; got ${String(triggerRatio)}`);
  }
  assertCount('compaction.keepRecent', keepRecent);
  return { triggerRatio, keepRecent };
}

/** Throws unless `value` is a whole number >= 0. */
export function assertCount(name: string, value: unknown): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new CompactionInputError(`${name} must be a whole number >= 0; got ${String(value)}`);
  }
}
