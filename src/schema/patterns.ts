import { RE2JS } from 're2js';
import { SchemaDefinitionError } from './errors.js';

/**
 * Strings up to this long are matched by the JS engine against a pattern that cannot backtrack badly;
 * a longer one goes to RE2, since even one unbounded quantifier is quadratic on a long enough string.
 */
export const NATIVE_PATTERN_INPUT = 1_000;

/** What a schema's `pattern` is checked with: the JS engine where that is safe, RE2 (linear time) where not. */
export type PatternTester = { test(text: string): boolean; toString(): string };

/**
 * Whether `pattern` can take more than quadratic time in a backtracking engine: a repeated group that
 * itself holds a quantifier or an alternation (`(a+)+`, `(a|aa)*`, `(\w+\s?)*`, the shape of every
 * exponential pattern), or two unbounded quantifiers (`\s*\w*$`, polynomial). A safe pattern may be
 * flagged (`([a-z]+\.)+` is fine in practice); that only sends it to the slower linear-time engine.
 */
export function mayBacktrack(pattern: string): boolean {
  // One frame per open group: whether it holds a quantifier or an alternation so far.
  const groups: Array<{ repeats: boolean }> = [{ repeats: false }];
  let unbounded = 0;
  let closed: { repeats: boolean } | undefined;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    const quantifier = quantifierAt(pattern, i);
    if (quantifier !== undefined) {
      if (quantifier.unbounded) unbounded++;
      if (quantifier.repeats && closed?.repeats) return true;
      if (quantifier.repeats) groups.at(-1)!.repeats = true;
      // A lazy or possessive mark belongs to the quantifier.
      i = quantifier.end - 1 + (pattern[quantifier.end] === '?' ? 1 : 0);
      closed = undefined;
      continue;
    }
    closed = undefined;
    if (c === '\\') i++;
    else if (c === '[') i = classEnd(pattern, i);
    else if (c === '(') groups.push({ repeats: false });
    else if (c === '|') groups.at(-1)!.repeats = true;
    else if (c === ')' && groups.length > 1) {
      closed = groups.pop()!;
      if (closed.repeats) groups.at(-1)!.repeats = true;
    }
  }
  return unbounded > 1;
}

/** The quantifier starting at `i`, if any: whether it repeats (more than once) and has no upper bound. */
function quantifierAt(pattern: string, i: number): { repeats: boolean; unbounded: boolean; end: number } | undefined {
  const c = pattern[i];
  if (c === '*' || c === '+') return { repeats: true, unbounded: true, end: i + 1 };
  if (c === '?') return { repeats: false, unbounded: false, end: i + 1 };
  if (c !== '{') return undefined;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (match === null) return undefined;
  const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
  return { repeats: max > 1, unbounded: max === Infinity, end: i + match[0].length };
}

function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}

// Schema patterns seen so far (a schema's are few, and compiled once), and the engine as loaded:
// `withBoundedPatterns` replaces the global while it runs.
const testers = new Map<string, PatternTester>();
const NativeRegExp = RegExp;

/**
 * The tester for `pattern` (JSON Schema patterns are ECMA-262 with the `u` flag). Throws the JS
 * engine's SyntaxError for a pattern that is not one, and `UnboundedPatternError` for one that may
 * backtrack badly and uses what RE2 lacks (lookaround, backreferences): no engine here could bound it.
 */
export function patternTester(pattern: string): PatternTester {
  let tester = testers.get(pattern);
  if (tester !== undefined) return tester;
  const native = new NativeRegExp(pattern, 'u');
  let linear: { matcher(text: string): { find(): boolean } } | undefined;
  try {
    linear = RE2JS.compile(pattern);
  } catch {
    // RE2 refuses lookaround and backreferences; the JS engine is then the only one, where it is safe.
    linear = undefined;
  }
  const risky = mayBacktrack(pattern);
  if (risky && linear === undefined) throw new UnboundedPatternError(pattern);
  const re2 = linear;
  tester = {
    test: (text) => (re2 === undefined || (!risky && text.length <= NATIVE_PATTERN_INPUT) ? native.test(text) : re2.matcher(text).find()),
    toString: () => native.toString(),
  };
  testers.set(pattern, tester);
  return tester;
}

/** A `pattern` no engine here can check in bounded time; `compileJsonSchema` turns it into a `SchemaDefinitionError`. */
export class UnboundedPatternError extends Error {
  constructor(readonly pattern: string) {
    super(
      `the pattern ${JSON.stringify(pattern)} may take exponential time on some strings (a repeated group that repeats or alternates ` +
        'inside, or two unbounded quantifiers) and uses lookaround or backreferences, which the linear-time engine (RE2) lacks; rewrite it',
    );
  }
}

// Keywords whose values are data, not schemas: a "pattern" key inside them is not a pattern.
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/** Checks every `pattern` and `patternProperties` key of `schema` up front, so a pattern nothing can bound is refused where the schema is defined. */
export function assertPatternsBounded(schema: unknown, what: string): void {
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    if (Array.isArray(node)) return node.forEach(visit);
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (key === 'pattern' && typeof value === 'string') checkPattern(value, what);
      if (key === 'patternProperties' && typeof value === 'object' && value !== null)
        for (const pattern of Object.keys(value)) checkPattern(pattern, what);
      visit(value);
    }
  };
  visit(schema);
}

function checkPattern(pattern: string, what: string): void {
  try {
    patternTester(pattern);
  } catch (cause) {
    if (cause instanceof UnboundedPatternError) throw new SchemaDefinitionError(what, cause.message, { cause });
    // A pattern that is not a regular expression at all is the validator's to report, as before.
  }
}

/**
 * A stand-in for `RegExp`: @cfworker/json-schema builds its patterns with `new RegExp(pattern, 'u')`
 * and offers no hook, so while it validates, the global is this. A schema's patterns were all checked
 * when it was compiled and get their tester; anything else (a string under `format: "regex"`, which is
 * only constructed to see that it compiles) gets the JS engine, uncached, as before.
 */
function BoundedRegExp(pattern: string, flags?: string): PatternTester | RegExp {
  return testers.get(pattern) ?? new NativeRegExp(pattern, flags);
}

/** Runs `validate` (synchronous: nothing else can run meanwhile) with every pattern checked in bounded time. */
export function withBoundedPatterns<T>(validate: () => T): T {
  const global = globalThis as { RegExp: RegExpConstructor };
  const native = global.RegExp;
  global.RegExp = BoundedRegExp as unknown as RegExpConstructor;
  try {
    return validate();
  } finally {
    global.RegExp = native;
  }
}
