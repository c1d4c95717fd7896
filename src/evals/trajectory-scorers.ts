// Trajectory matchers, as LangSmith's: the tool calls the agent made against the ones expected.
import { EvalOptionsError } from './errors.js';
import { containsValue, isRecord, scorer } from './scorers.js';
import type { Scorer, ScorerInput, TrajectoryStep } from './types.js';

/**
 * One expected call: a tool name, or a name with a matcher of its input (a function, or a value whose
 * fields the input must have with equal values).
 */
export type ToolExpectation = string | { name: string; input?: unknown };

/**
 * `strict`: exactly the expected calls, in that order. `unordered`: exactly the expected calls, in any
 * order. `subset`: the expected calls appear in that order among the agent's (others may come between).
 */
export type TrajectoryMode = 'strict' | 'unordered' | 'subset';

export type TrajectoryOptions = {
  name?: string;
  threshold?: number;
  mode: TrajectoryMode;
  /** The calls expected; default the case's `expected.trajectory`. A function reads them from the case. */
  expected?: ToolExpectation[] | ((input: ScorerInput) => ToolExpectation[]);
  /** Count a sub-agent's calls too (depth first, each after the call that ran it). Default false. */
  nested?: boolean;
};

/** A trajectory matcher: 1 when the agent's tool calls match the expected ones the way `mode` says, else 0 with the first difference. */
export function trajectoryMatch(options: TrajectoryOptions): Scorer {
  if (!['strict', 'unordered', 'subset'].includes(options?.mode)) {
    throw new EvalOptionsError('trajectoryMatch: `mode` must be "strict", "unordered" or "subset"');
  }
  const { mode } = options;
  return scorer(
    options.name ?? `trajectory_${mode}`,
    (input) => {
      const expected = expectationsOf(input, options.expected);
      const calls = options.nested === true ? flatten(input.trajectory) : input.trajectory;
      const names = calls.map((c) => c.name).join(', ') || '(none)';
      if (mode === 'strict') {
        for (let i = 0; i < Math.max(expected.length, calls.length); i++) {
          if (i >= calls.length)
            return { score: 0, reason: `call ${i + 1} missing: expected ${describe(expected[i])}; calls were ${names}` };
          if (i >= expected.length) return { score: 0, reason: `unexpected call ${i + 1}: ${calls[i].name}; calls were ${names}` };
          if (!matches(expected[i], calls[i]))
            return { score: 0, reason: `call ${i + 1} was ${calls[i].name}${inputOf(calls[i])}, expected ${describe(expected[i])}` };
        }
        return { score: 1, reason: `the calls were ${names}, as expected` };
      }
      if (mode === 'subset') {
        let at = 0;
        for (const want of expected) {
          while (at < calls.length && !matches(want, calls[at])) at++;
          if (at === calls.length) return { score: 0, reason: `no ${describe(want)} in order among the calls (${names})` };
          at++;
        }
        return { score: 1, reason: `the expected calls came in order among ${names}` };
      }
      if (calls.length !== expected.length) return { score: 0, reason: `${calls.length} calls (${names}), expected ${expected.length}` };
      const unmatched = unmatchedExpectations(expected, calls);
      return unmatched.length === 0
        ? { score: 1, reason: `the calls were the expected ones (${names})` }
        : { score: 0, reason: `no call for ${unmatched.map(describe).join(', ')}; calls were ${names}` };
    },
    options,
  );
}

function expectationsOf(input: ScorerInput, given: TrajectoryOptions['expected']): ToolExpectation[] {
  const list = typeof given === 'function' ? given(input) : (given ?? (isRecord(input.expected) ? input.expected.trajectory : undefined));
  if (!Array.isArray(list))
    throw new EvalOptionsError('trajectoryMatch: no expected calls (give `expected`, or the case an `expected.trajectory` array)');
  for (const item of list) {
    if (typeof item !== 'string' && !(isRecord(item) && typeof item.name === 'string')) {
      throw new EvalOptionsError('trajectoryMatch: each expected call is a tool name or { name, input? }');
    }
  }
  return list as ToolExpectation[];
}

function matches(want: ToolExpectation, call: TrajectoryStep): boolean {
  if (typeof want === 'string') return call.name === want;
  if (call.name !== want.name) return false;
  if (!('input' in want) || want.input === undefined) return true;
  return typeof want.input === 'function'
    ? (want.input as (input: unknown) => boolean)(call.input) === true
    : containsValue(call.input, want.input);
}

/** The expectations no one-to-one assignment to calls can satisfy (a bipartite matching, so a loose matcher cannot steal a call a strict one needs). */
function unmatchedExpectations(expected: ToolExpectation[], calls: TrajectoryStep[]): ToolExpectation[] {
  const owner: number[] = new Array(calls.length).fill(-1);
  const assign = (e: number, seen: boolean[]): boolean => {
    for (let c = 0; c < calls.length; c++) {
      if (seen[c] || !matches(expected[e], calls[c])) continue;
      seen[c] = true;
      if (owner[c] < 0 || assign(owner[c], seen)) {
        owner[c] = e;
        return true;
      }
    }
    return false;
  };
  return expected.filter((_, e) => !assign(e, new Array(calls.length).fill(false)));
}

function flatten(steps: TrajectoryStep[]): TrajectoryStep[] {
  return steps.flatMap((step) => [step, ...flatten(step.children ?? [])]);
}

function describe(want: ToolExpectation): string {
  if (typeof want === 'string') return want;
  if (want.input === undefined) return want.name;
  return `${want.name}(${typeof want.input === 'function' ? 'matching input' : JSON.stringify(want.input)})`;
}

function inputOf(call: TrajectoryStep): string {
  const text = JSON.stringify(call.input) ?? '';
  return `(${text.length > 80 ? `${text.slice(0, 77)}...` : text})`;
}
