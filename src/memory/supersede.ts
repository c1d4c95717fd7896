import { MemoryConflictError } from './errors.js';
import { sameScope, scopeOf } from './governance.js';
import type { MemoryRecord } from './types.js';
import type { ResolvedSave } from './options.js';

/**
 * Which records a save retires, decided the same way by every store from what it looked up:
 * - every id in `supersedes` (each must exist, be current and sit in exactly the saver's scope,
 *   or the save is refused with `MemoryConflictError`);
 * - the current record with the same `key` in the same scope (a topic slot, as in a key-value store);
 * - current records in the same scope and of the same kind whose text is the same fact restated:
 *   the same index terms in the same order (see `fingerprint`).
 * Nothing else: no similarity guess ever retires a record. Each target comes back once, in that order.
 */
export function chooseTargets<T extends { record: MemoryRecord }>(
  save: ResolvedSave,
  named: ReadonlyMap<string, T>,
  sameKey: readonly T[],
  restated: readonly T[],
): T[] {
  const out = new Map<string, T>();
  for (const id of save.supersedes) {
    const target = named.get(id);
    if (target === undefined || !sameScope(scopeOf(target.record), save.scope)) {
      throw new MemoryConflictError(`supersedes names ${JSON.stringify(id)}, which is not a record in this scope; nothing was saved.`);
    }
    if (target.record.supersededBy !== undefined) {
      throw new MemoryConflictError(
        `supersedes names ${JSON.stringify(id)}, already superseded by ${target.record.supersededBy}; nothing was saved.`,
      );
    }
    out.set(id, target);
  }
  for (const target of [...sameKey, ...restated]) out.set(target.record.id, target);
  return [...out.values()];
}
