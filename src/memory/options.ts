import { MemoryInputError } from './errors.js';

export type SaveOptions = { kind?: string; meta?: Record<string, unknown> };
export type SearchOptions = { k?: number; kind?: string; minScore?: number };
export type ResolvedSearch = { k: number; kind: string | undefined; minScore: number };

const DEFAULT_K = 5;

/** Validates `save` input; every store applies the same rules so switching stores changes no behaviour. */
export function checkSave(text: unknown, opts: SaveOptions | undefined): asserts text is string {
  if (typeof text !== 'string') throw new MemoryInputError(`Memory text must be a string, got ${describe(text)}.`);
  if (text.trim() === '') throw new MemoryInputError('Memory text is empty; there is nothing to remember.');
  if (opts === undefined) return;
  if (typeof opts !== 'object' || opts === null) throw new MemoryInputError(`save options must be an object, got ${describe(opts)}.`);
  if (opts.kind !== undefined && typeof opts.kind !== 'string') throw new MemoryInputError(`kind must be a string, got ${describe(opts.kind)}.`);
  if (opts.meta !== undefined && (typeof opts.meta !== 'object' || opts.meta === null || Array.isArray(opts.meta))) {
    throw new MemoryInputError(`meta must be a plain object, got ${describe(opts.meta)}.`);
  }
}

/** Applies the documented defaults (k 5, minScore 0) and rejects values no caller means. */
export function resolveSearch(query: unknown, opts: SearchOptions | undefined): ResolvedSearch {
  if (typeof query !== 'string') throw new MemoryInputError(`Search query must be a string, got ${describe(query)}.`);
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw new MemoryInputError(`search options must be an object, got ${describe(opts)}.`);
  }
  const k = opts?.k ?? DEFAULT_K;
  if (!Number.isInteger(k) || k < 0) throw new MemoryInputError(`k must be a whole number >= 0, got ${describe(k)}.`);
  const minScore = opts?.minScore ?? 0;
  if (typeof minScore !== 'number' || Number.isNaN(minScore)) throw new MemoryInputError(`minScore must be a number, got ${describe(minScore)}.`);
  const kind = opts?.kind;
  if (kind !== undefined && typeof kind !== 'string') throw new MemoryInputError(`kind must be a string, got ${describe(kind)}.`);
  return { k, kind, minScore };
}

/**
 * Serializes `meta` as JSON, the one format every store can keep, so a record reads back the same from
 * the in-process store and from SQLite. Values JSON cannot hold (BigInt, cycles) are refused.
 */
export function encodeMeta(meta: Record<string, unknown>): string {
  try {
    return JSON.stringify(meta);
  } catch (error) {
    throw new MemoryInputError(`meta must be JSON data: ${(error as Error).message}`, { cause: error });
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return typeof value;
}
