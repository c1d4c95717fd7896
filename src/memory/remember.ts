import type { MemoryRecord, MemoryStore, SaveOptions } from './types.js';
import { MemoryInputError } from './errors.js';
import { checkText, describe } from './options.js';

/**
 * Saves each fact in order, one at a time (a store may rank or dedupe by arrival), and returns the
 * saved records. Facts are trimmed and empty ones skipped; `kind` defaults to 'fact'; `scope` and
 * `provenance` go to every save. Every fact is checked before the first save, so a bad list saves nothing.
 */
export async function rememberFacts(
  memory: MemoryStore,
  facts: string[],
  opts?: { kind?: string; scope?: SaveOptions['scope']; provenance?: SaveOptions['provenance'] },
): Promise<MemoryRecord[]> {
  if (!Array.isArray(facts)) throw new MemoryInputError(`facts must be an array of strings, got ${describe(facts)}.`);
  facts.forEach((fact, i) => {
    if (typeof fact !== 'string') throw new MemoryInputError(`facts[${i}] must be a string, got ${describe(fact)}.`);
    checkText(fact, `facts[${i}]`);
  });
  const kind = opts?.kind ?? 'fact';
  if (typeof kind !== 'string') throw new MemoryInputError(`kind must be a string, got ${describe(kind)}.`);
  const saved: MemoryRecord[] = [];
  for (const fact of facts) {
    const text = fact.trim();
    if (text !== '') saved.push(await memory.save(text, { kind, scope: opts?.scope, provenance: opts?.provenance }));
  }
  return saved;
}
