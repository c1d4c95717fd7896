import { MemoryInputError } from './errors.js';
import type { ListOptions, MemoryEdit, MemoryScope, OwnerOptions, SaveOptions, SearchOptions } from './types.js';

export type ResolvedSearch = {
  k: number;
  kind: string | undefined;
  minScore: number;
  scope: MemoryScope;
  includeSuperseded: boolean;
  /** `provenance.at` bounds, [since, until); -Infinity / Infinity when unset. */
  since: number;
  until: number;
  ranking: 'hybrid' | 'words' | 'vector';
  signal: AbortSignal | undefined;
};
export type ResolvedSave = {
  kind: string | undefined;
  meta: string | undefined;
  scope: MemoryScope;
  provenance: { sessionId?: string; nodeId?: string; at?: number };
  key: string | undefined;
  supersedes: string[];
  /** The surrounding text indexed at half weight beside the record's own words; never stored as text. */
  context: string | undefined;
};

const DEFAULT_K = 5;

/**
 * The most characters a record's text may hold, in every store: a remembered fact, not a document.
 * It keeps a record's index entry inside PostgreSQL's tsvector limit (1 MB of lexemes).
 */
export const MAX_TEXT_LENGTH = 200_000;

// With the u flag a surrogate pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Checks a string every store must hold unchanged: PostgreSQL text cannot hold NUL, and a lone
 * surrogate would come back as U+FFFD from any store that encodes UTF-8. Both are refused everywhere.
 */
export function checkText(value: string, what: string): void {
  if (value.includes('\0')) throw new MemoryInputError(`${what} contains a NUL character, which no memory store can keep.`);
  if (LONE_SURROGATE.test(value)) throw new MemoryInputError(`${what} is not well-formed Unicode (it holds a lone surrogate).`);
}

function checkRecordText(text: unknown): asserts text is string {
  if (typeof text !== 'string') throw new MemoryInputError(`Memory text must be a string, got ${describe(text)}.`);
  if (text.trim() === '') throw new MemoryInputError('Memory text is empty; there is nothing to remember.');
  if (text.length > MAX_TEXT_LENGTH)
    throw new MemoryInputError(`Memory text is ${text.length} characters; a record holds at most ${MAX_TEXT_LENGTH}.`);
  checkText(text, 'Memory text');
}

/** A record's context: any string a record's text could be (empty meaning none), held to the same size. */
export function checkContext(value: unknown, what: string): string | undefined {
  const context = optionalString(value, what);
  if (context !== undefined && context.length > MAX_TEXT_LENGTH)
    throw new MemoryInputError(`${what} is ${context.length} characters; a record's context holds at most ${MAX_TEXT_LENGTH}.`);
  return context;
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new MemoryInputError(`${what} must be a string, got ${describe(value)}.`);
  checkText(value, what);
  return value;
}

function nonEmpty(value: unknown, what: string): string | undefined {
  const text = optionalString(value, what);
  if (text === '') throw new MemoryInputError(`${what} must not be empty.`);
  return text;
}

function checkObject(value: unknown, what: string): void {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new MemoryInputError(`${what} must be an object, got ${describe(value)}.`);
  }
}

/** A scope with only the parts that are set; each must be a non-empty string. */
export function checkScope(scope: unknown): MemoryScope {
  if (scope === undefined) return {};
  checkObject(scope, 'scope');
  const { resource, session } = scope as MemoryScope;
  const out: MemoryScope = {};
  const r = nonEmpty(resource, 'scope.resource');
  const s = nonEmpty(session, 'scope.session');
  if (r !== undefined) out.resource = r;
  if (s !== undefined) out.session = s;
  return out;
}

/** Validates `save` input; every store applies the same rules so switching stores changes no behaviour. */
export function checkSave(text: unknown, opts: SaveOptions | undefined): ResolvedSave {
  checkRecordText(text);
  checkObject(opts, 'save options');
  const kind = optionalString(opts?.kind, 'kind');
  if (opts?.meta !== undefined) checkObject(opts.meta, 'meta');
  const meta = opts?.meta === undefined ? undefined : encodeMeta(opts.meta);
  const scope = checkScope(opts?.scope);
  checkObject(opts?.provenance, 'provenance');
  const given = opts?.provenance ?? {};
  const provenance: ResolvedSave['provenance'] = {};
  const sessionId = nonEmpty(given.sessionId, 'provenance.sessionId');
  const nodeId = nonEmpty(given.nodeId, 'provenance.nodeId');
  if (sessionId !== undefined) provenance.sessionId = sessionId;
  if (nodeId !== undefined) provenance.nodeId = nodeId;
  if (given.at !== undefined) {
    if (typeof given.at !== 'number' || !Number.isFinite(given.at))
      throw new MemoryInputError(`provenance.at must be a finite number (epoch ms), got ${describe(given.at)}.`);
    provenance.at = given.at;
  }
  const key = nonEmpty(opts?.key, 'key');
  const context = checkContext(opts?.context, 'context');
  const raw = opts?.supersedes;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  const supersedes = list.map((id, i) => nonEmpty(id, `supersedes[${i}]`)!);
  return { kind, meta, scope, provenance, key, supersedes: [...new Set(supersedes)], context };
}

/** Applies the documented defaults (k 5, minScore 0, the empty scope) and rejects values no caller means. */
export function resolveSearch(query: unknown, opts: SearchOptions | undefined): ResolvedSearch {
  if (typeof query !== 'string') throw new MemoryInputError(`Search query must be a string, got ${describe(query)}.`);
  if (opts !== undefined && (typeof opts !== 'object' || opts === null)) {
    throw new MemoryInputError(`search options must be an object, got ${describe(opts)}.`);
  }
  const k = opts?.k ?? DEFAULT_K;
  if (!Number.isInteger(k) || k < 0) throw new MemoryInputError(`k must be a whole number >= 0, got ${describe(k)}.`);
  const minScore = opts?.minScore ?? 0;
  if (typeof minScore !== 'number' || Number.isNaN(minScore))
    throw new MemoryInputError(`minScore must be a number, got ${describe(minScore)}.`);
  const kind = optionalString(opts?.kind, 'kind');
  const since = time(opts?.since, 'since') ?? -Infinity;
  const until = time(opts?.until, 'until') ?? Infinity;
  const ranking = opts?.ranking ?? 'hybrid';
  if (ranking !== 'hybrid' && ranking !== 'words' && ranking !== 'vector')
    throw new MemoryInputError(`ranking must be 'hybrid', 'words' or 'vector', got ${describe(ranking)}.`);
  const signal = opts?.signal;
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new MemoryInputError('signal must be an AbortSignal.');
  return {
    k,
    kind,
    minScore,
    scope: checkScope(opts?.scope),
    includeSuperseded: flag(opts?.includeSuperseded, 'includeSuperseded'),
    since,
    until,
    ranking,
    signal,
  };
}

function time(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new MemoryInputError(`${what} must be a finite number (epoch ms), got ${describe(value)}.`);
  return value;
}

export function resolveList(opts: ListOptions | undefined): { kind: string | undefined; scope: MemoryScope; includeSuperseded: boolean } {
  checkObject(opts, 'list options');
  return {
    kind: optionalString(opts?.kind, 'kind'),
    scope: checkScope(opts?.scope),
    includeSuperseded: flag(opts?.includeSuperseded, 'includeSuperseded'),
  };
}

export function resolveOwner(id: unknown, opts: OwnerOptions | undefined): { id: string; scope: MemoryScope } {
  if (typeof id !== 'string') throw new MemoryInputError(`Record id must be a string, got ${describe(id)}.`);
  checkObject(opts, 'options');
  return { id, scope: checkScope(opts?.scope) };
}

export type ResolvedEdit = { text?: string; kind?: string | null; meta?: string | null };

/** Validates an edit; `meta` comes back encoded, `null` meaning "remove". At least one field must change. */
export function checkEdit(edit: MemoryEdit | undefined): ResolvedEdit {
  checkObject(edit, 'edit');
  if (edit === undefined) throw new MemoryInputError('update needs an edit: { text?, kind?, meta? }.');
  const out: ResolvedEdit = {};
  if (edit.text !== undefined) {
    checkRecordText(edit.text);
    out.text = edit.text;
  }
  if (edit.kind !== undefined) out.kind = edit.kind === null ? null : optionalString(edit.kind, 'kind')!;
  if (edit.meta !== undefined) {
    if (edit.meta !== null) checkObject(edit.meta, 'meta');
    out.meta = edit.meta === null ? null : encodeMeta(edit.meta);
  }
  if (Object.keys(out).length === 0) throw new MemoryInputError('update changes nothing: give text, kind or meta.');
  return out;
}

function flag(value: unknown, what: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw new MemoryInputError(`${what} must be true or false, got ${describe(value)}.`);
  return value;
}

/**
 * Serializes `meta` as JSON, the one format every store can keep, so a record reads back the same from
 * any store. Values JSON cannot hold (BigInt, cycles) and strings no store can keep are refused.
 */
export function encodeMeta(meta: Record<string, unknown>): string {
  try {
    return JSON.stringify(meta, (key, value: unknown) => {
      checkText(key, 'A meta key');
      if (typeof value === 'string') checkText(value, `meta value ${JSON.stringify(key)}`);
      return value;
    });
  } catch (error) {
    if (MemoryInputError.isInstance(error)) throw error;
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
