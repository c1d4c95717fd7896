// The built-in scorers of text and structured answers, and `scorer` for your own. Each compares the
// case's answer with its `expected`: a string, or for the text scorers an object whose `output` is one.
import stableStringify from 'fast-json-stable-stringify';
import { compileSchema, formatIssues, type SchemaLike } from '../schema/index.js';
import { EvalOptionsError } from './errors.js';
import type { Scorer, ScorerInput, ScoreResult } from './types.js';

type Threshold = { threshold?: number };

/** A scorer of your own: `fn` gets the case (input, output, expected, trajectory, metadata) and returns `{ score, reason }`. */
export function scorer<E = any>(
  name: string,
  fn: (input: ScorerInput<E>) => ScoreResult | Promise<ScoreResult>,
  options: Threshold = {},
): Scorer<E> {
  if (typeof name !== 'string' || name.trim() === '') throw new EvalOptionsError('a scorer needs a name');
  if (typeof fn !== 'function') throw new EvalOptionsError(`scorer "${name}": the second argument must be a function`);
  checkThreshold(name, options.threshold);
  return { name, threshold: options.threshold, score: fn };
}

/** 1 when the answer is the expected text (trimmed; `ignoreCase` for a case-blind match), else 0. */
export function exactMatch(options: Threshold & { name?: string; ignoreCase?: boolean; trim?: boolean } = {}): Scorer {
  const fold = (text: string) => {
    const trimmed = options.trim === false ? text : text.trim();
    return options.ignoreCase === true ? trimmed.toLowerCase() : trimmed;
  };
  return scorer(
    options.name ?? 'exact',
    ({ output, expected }) => {
      const want = expectedText(expected, 'exact');
      return fold(output) === fold(want)
        ? { score: 1, reason: 'the answer is the expected text' }
        : { score: 0, reason: `expected ${quote(want)}, got ${quote(output)}` };
    },
    options,
  );
}

/** The share of the expected texts (one, or an array) the answer contains: 1 when it has them all. */
export function contains(options: Threshold & { name?: string; ignoreCase?: boolean; texts?: string[] } = {}): Scorer {
  return scorer(
    options.name ?? 'contains',
    ({ output, expected }) => {
      const wanted =
        options.texts ??
        (Array.isArray(expected) ? expected.map((e) => expectedText(e, 'contains')) : [expectedText(expected, 'contains')]);
      if (wanted.length === 0) throw new EvalOptionsError('contains: nothing expected');
      const fold = (text: string) => (options.ignoreCase === true ? text.toLowerCase() : text);
      const missing = wanted.filter((text) => !fold(output).includes(fold(text)));
      const score = (wanted.length - missing.length) / wanted.length;
      return {
        score,
        reason: missing.length === 0 ? `the answer contains ${wanted.map(quote).join(', ')}` : `missing ${missing.map(quote).join(', ')}`,
      };
    },
    options,
  );
}

/** 1 when the answer matches `pattern` (else the case's expected text, read as a regular expression). */
export function regex(pattern?: RegExp | string, options: Threshold & { name?: string } = {}): Scorer {
  const fixed = pattern === undefined ? undefined : toRegExp(pattern);
  return scorer(
    options.name ?? 'regex',
    ({ output, expected }) => {
      const re = fixed ?? toRegExp(expectedText(expected, 'regex'));
      re.lastIndex = 0;
      return re.test(output) ? { score: 1, reason: `the answer matches ${re}` } : { score: 0, reason: `the answer does not match ${re}` };
    },
    options,
  );
}

/** 1 when the answer (the structured output, else the answer's text read as JSON) matches the schema; the reason names every problem. */
export function jsonSchema(schema: SchemaLike, options: Threshold & { name?: string } = {}): Scorer {
  const compiled = compileSchema(schema, 'the jsonSchema scorer');
  return scorer(
    options.name ?? 'json_schema',
    async (input) => {
      const value = answerValue(input);
      if (!value.ok) return { score: 0, reason: value.reason };
      const check = await compiled.check(value.value);
      return check.ok ? { score: 1, reason: 'the answer matches the schema' } : { score: 0, reason: formatIssues(check.issues) };
    },
    options,
  );
}

/**
 * 1 when the answer (structured output, else the text read as JSON) equals `expected` as JSON (key order
 * aside); `partial: true` asks only that the expected fields be there with equal values. Otherwise the
 * share of the expected top-level fields that are equal.
 */
export function structuredEqual(options: Threshold & { name?: string; partial?: boolean } = {}): Scorer {
  return scorer(
    options.name ?? 'structured_equal',
    (input) => {
      const value = answerValue(input);
      if (!value.ok) return { score: 0, reason: value.reason };
      const expected = input.expected;
      if (options.partial === true ? containsValue(value.value, expected) : sameJson(value.value, expected)) {
        return { score: 1, reason: 'the answer equals the expected value' };
      }
      if (isRecord(expected) && isRecord(value.value)) {
        const keys = Object.keys(expected);
        const wrong = keys.filter((key) => !sameJson((value.value as Record<string, unknown>)[key], expected[key]));
        return {
          score: keys.length === 0 ? 0 : (keys.length - wrong.length) / keys.length,
          reason: `fields that differ: ${wrong.join(', ') || '(extra fields)'}`,
        };
      }
      return { score: 0, reason: `expected ${stableStringify(expected)}, got ${stableStringify(value.value)}` };
    },
    options,
  );
}

/**
 * How close the answer's number (the structured output if a number, else the first number in the text)
 * is to the expected one: 1 within `tolerance` (default 0), falling linearly to 0 at `scale` away
 * (default the expected value's size, at least 1).
 */
export function numericCloseness(options: Threshold & { name?: string; tolerance?: number; scale?: number } = {}): Scorer {
  const tolerance = options.tolerance ?? 0;
  if (!(tolerance >= 0)) throw new EvalOptionsError('numericCloseness: `tolerance` must be a number >= 0');
  if (options.scale !== undefined && !(options.scale > 0)) throw new EvalOptionsError('numericCloseness: `scale` must be a number > 0');
  return scorer(
    options.name ?? 'numeric',
    ({ output, structured, expected }) => {
      const want =
        typeof expected === 'number' ? expected : isRecord(expected) && typeof expected.output === 'number' ? expected.output : Number.NaN;
      if (!Number.isFinite(want)) throw new EvalOptionsError('numericCloseness: the case has no expected number');
      const got = typeof structured === 'number' ? structured : firstNumber(output);
      if (got === undefined) return { score: 0, reason: 'the answer holds no number' };
      const off = Math.abs(got - want);
      if (off <= tolerance) return { score: 1, reason: `${got} is within ${tolerance} of ${want}` };
      const scale = options.scale ?? Math.max(Math.abs(want), 1);
      return { score: Math.max(0, 1 - (off - tolerance) / scale), reason: `${got} is ${off} from ${want}` };
    },
    options,
  );
}

export function checkThreshold(name: string, threshold: number | undefined): void {
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
    throw new EvalOptionsError(`scorer "${name}": \`threshold\` must be between 0 and 1`);
}

function expectedText(expected: unknown, scorerName: string): string {
  if (typeof expected === 'string') return expected;
  if (isRecord(expected) && typeof expected.output === 'string') return expected.output;
  throw new EvalOptionsError(`${scorerName}: the case's \`expected\` must be a string (or { output: string })`);
}

function answerValue(input: ScorerInput): { ok: true; value: unknown } | { ok: false; reason: string } {
  if (input.structured !== undefined) return { ok: true, value: input.structured };
  try {
    return { ok: true, value: JSON.parse(stripFence(input.output)) };
  } catch {
    return { ok: false, reason: `the answer is not JSON: ${quote(input.output)}` };
  }
}

/** A model's JSON often comes in a ```json fence. */
function stripFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced ? fenced[1] : text;
}

function toRegExp(pattern: RegExp | string): RegExp {
  if (pattern instanceof RegExp) return pattern;
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new EvalOptionsError(`regex: ${quote(pattern)} is not a regular expression (${(error as Error).message})`);
  }
}

function firstNumber(text: string): number | undefined {
  const match = /-?\d+(?:[.,]\d+)?(?:e[+-]?\d+)?/i.exec(text.replace(/(\d),(?=\d{3}\b)/g, '$1'));
  return match ? Number(match[0].replace(',', '.')) : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function sameJson(a: unknown, b: unknown): boolean {
  return stableStringify(a) === stableStringify(b);
}

/** `want`'s fields are in `got` with equal values, recursively (arrays compared whole). */
export function containsValue(got: unknown, want: unknown): boolean {
  if (isRecord(want)) return isRecord(got) && Object.keys(want).every((key) => containsValue(got[key], want[key]));
  return sameJson(got, want);
}

export function quote(text: string): string {
  const short = text.length > 120 ? `${text.slice(0, 117)}...` : text;
  return JSON.stringify(short);
}
