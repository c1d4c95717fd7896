// What every store does the same way for working memory: the checks on its arguments, the block as the
// JSON text the SQL stores keep, and the rule a write is judged by.
import { MemoryInputError, WorkingMemoryConflictError } from '../errors.js';
import { checkScope, checkText, describe } from '../options.js';
import type { MemoryScope, WorkingMemory } from '../types.js';

/**
 * The most characters a block's JSON text may hold in any store. Working memory is shown to the model
 * every turn, so it is meant to be small; this is only the stores' outer limit (a `workingMemory`
 * source sets a far smaller one, `maxChars`).
 */
export const MAX_WORKING_LENGTH = 100_000;

/** The block's scope: required (`{}` names the shared block, so no caller reaches it by forgetting a scope). */
export function checkWorkingScope(scope: unknown): MemoryScope {
  if (scope === undefined)
    throw new MemoryInputError('A working memory call needs its scope: { resource?, session? } ({} for the block shared by all).');
  return checkScope(scope);
}

/** The version a write expects: a whole number >= 0 (0: there is no block yet). */
export function checkExpectedVersion(opts: unknown): number {
  if (typeof opts !== 'object' || opts === null)
    throw new MemoryInputError('setWorking needs { expectedVersion }: the version read, 0 when there was no block.');
  const version = (opts as { expectedVersion?: unknown }).expectedVersion;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0)
    throw new MemoryInputError(
      `expectedVersion must be a whole number >= 0 (the version read, 0 when there was no block), got ${describe(version)}.`,
    );
  return version;
}

/**
 * The content as JSON text, refusing anything JSON would change or drop (undefined, functions, NaN,
 * class instances, cycles) and any string no store can keep, so every store hands back what was written.
 */
export function encodeWorking(content: unknown): string {
  const seen = new Set<object>();
  const walk = (value: unknown, path: string): void => {
    if (value === null || typeof value === 'boolean') return;
    if (typeof value === 'string') return checkText(value, `Working memory ${path}`);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new MemoryInputError(`Working memory ${path} is ${value}, which JSON cannot hold.`);
      return;
    }
    if (typeof value !== 'object') throw new MemoryInputError(`Working memory ${path} is ${describe(value)}, which is not JSON data.`);
    if (seen.has(value)) throw new MemoryInputError(`Working memory ${path} refers back to itself; JSON cannot hold a cycle.`);
    seen.add(value);
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, `${path}[${i}]`));
    else {
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null)
        throw new MemoryInputError(`Working memory ${path} is a ${proto?.constructor?.name ?? 'class'} instance, not plain JSON data.`);
      for (const [key, item] of Object.entries(value)) {
        checkText(key, `A working memory key at ${path}`);
        walk(item, `${path}.${key}`);
      }
    }
    seen.delete(value);
  };
  walk(content, 'content');
  const text = JSON.stringify(content);
  if (text.length > MAX_WORKING_LENGTH)
    throw new MemoryInputError(`Working memory is ${text.length} characters of JSON; a block holds at most ${MAX_WORKING_LENGTH}.`);
  return text;
}

/** A stored row as the block it is; undefined for a forgotten one (its row keeps only the version). */
export function workingFromRow(row: { content: string | null; version: number } | undefined): WorkingMemory | undefined {
  if (row === undefined || row.content === null) return undefined;
  return { content: JSON.parse(row.content), version: Number(row.version) };
}

/**
 * The version a write at `expected` gives the block, or the conflict. `stored` is the scope's row:
 * absent, forgotten (`live` false: the version it reached is kept, so versions never repeat and a writer
 * holding an old one cannot mistake a new block for the one it read), or live.
 */
export function nextVersion(stored: { version: number; live: boolean } | undefined, expected: number): number {
  const current = stored?.live === true ? stored.version : 0;
  if (current !== expected) throw new WorkingMemoryConflictError(expected, current);
  return (stored?.version ?? 0) + 1;
}

/** A scope as the SQL stores' two key columns: '' for an unset part, as the record tables have it. */
export function scopeKey(scope: MemoryScope): { resource: string; session: string } {
  return { resource: scope.resource ?? '', session: scope.session ?? '' };
}
