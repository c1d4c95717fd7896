import type { MemoryRecord, MemoryStore } from './types.js';
import { MemoryInputError } from './errors.js';
import { describe } from './options.js';

/**
 * Saves each fact in order, one at a time (a store may rank or dedupe by arrival), and returns the
 * saved records. Facts are trimmed and empty ones skipped; `kind` defaults to 'fact'. Every fact is
 * checked before the first save, so a bad list saves nothing.
 */
export async function rememberFacts(memory: MemoryStore, facts: string[], opts?: { kind?: string }): Promise<MemoryRecord[]> {
  if (!Array.isArray(facts)) throw new MemoryInputError(`facts must be an array of strings, got ${describe(facts)}.`);
  facts.forEach((fact, i) => {
    if (typeof fact !== 'string') throw new MemoryInputError(`facts[${i}] must be a string, got ${describe(fact)}.`);
  });
  const kind = opts?.kind ?? 'fact';
  if (typeof kind !== 'string') throw new MemoryInputError(`kind must be a string, got ${describe(kind)}.`);
  const saved: MemoryRecord[] = [];
  for (const fact of facts) {
    const text = fact.trim();
    if (text !== '') saved.push(await memory.save(text, { kind }));
  }
  return saved;
}
