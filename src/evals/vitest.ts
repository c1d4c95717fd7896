// Evaluations in the test runner (`indusagi/evals/vitest`): `describeEval` runs an evaluation as a vitest
// suite, one test per case, and fails the case's test when a score falls under its threshold. An entry
// of its own so that `indusagi/evals` (and `indusagi eval`) never load vitest.
import { beforeAll, describe, expect, it } from 'vitest';
import { EvalOptionsError } from './errors.js';
import { evaluate } from './evaluate.js';
import type { CaseResult, EvalResult, EvaluateOptions } from './types.js';

export type DescribeEvalOptions<E = any> = EvaluateOptions<E> & {
  /**
   * The score each case must reach, on every scorer (a number) or per scorer name; a scorer not named
   * keeps its own `threshold` (default 0.5). A case that did not settle (faulted, missed its recording,
   * skipped) fails whatever its scores.
   */
  threshold?: number | Record<string, number>;
  /** The mean over every case each scorer must reach: one test per scorer named (a number: every scorer). */
  mean?: number | Record<string, number>;
  /** How long the evaluation may take, for vitest's hook timeout. Default 10 minutes. */
  timeout?: number;
  /** Given the whole result once it ran, to keep it (`JSON.stringify`, `htmlReport`). */
  onResult?: (result: EvalResult) => void | Promise<void>;
};

/**
 * A vitest suite named `name` over the evaluation `options`: the evaluation runs once, before the tests;
 * then each case is a test (named by its id; one test for every case when `data` is a file), failing
 * with each score under its threshold and why, and each scorer `mean` names is a test of its mean.
 */
export function describeEval<E = any>(name: string, options: DescribeEvalOptions<E>): void {
  const { threshold, mean, timeout = 600_000, onResult, ...evaluation } = options;
  checkLevels('threshold', threshold);
  checkLevels('mean', mean);
  let result: EvalResult | undefined;
  describe(name, () => {
    beforeAll(async () => {
      result = await evaluate(evaluation);
      await onResult?.(result);
    }, timeout);
    const ran = (): EvalResult => {
      if (result === undefined) throw new EvalOptionsError('the evaluation did not run (see the error of the hook before it)');
      return result;
    };
    const scorerNames = evaluation.scorers.map((s) => s.name);
    const levelOf = (scorer: string): number | undefined => (typeof threshold === 'number' ? threshold : threshold?.[scorer]);
    const problems = (c: CaseResult): string[] => {
      if (c.status !== 'settled') return [`case ${c.id} ended ${c.status}: ${c.error?.message ?? ''}`];
      return c.scores.flatMap((s) => {
        const level = levelOf(s.name);
        const under = level === undefined ? !s.passed : s.score < level;
        return under ? [`case ${c.id}: ${s.name} scored ${s.score}${level === undefined ? '' : `, under ${level}`}: ${s.reason}`] : [];
      });
    };
    if (typeof evaluation.data === 'string') {
      it('every case', () => {
        const found = ran().cases.flatMap(problems);
        expect(found, found.join('\n')).toEqual([]);
      });
    } else {
      evaluation.data.forEach((c, index) => {
        it(c.id ?? `case ${index + 1}`, () => {
          const found = problems(ran().cases[index]);
          expect(found, found.join('\n')).toEqual([]);
        });
      });
    }
    for (const scorer of typeof mean === 'number' ? scorerNames : Object.keys(mean ?? {})) {
      const level = typeof mean === 'number' ? mean : mean![scorer];
      it(`${scorer}: mean at least ${level}`, () => {
        const summary = ran().summary.scorers.find((s) => s.name === scorer);
        if (summary === undefined)
          throw new EvalOptionsError(`mean names "${scorer}", which is none of the scorers (${scorerNames.join(', ')})`);
        expect(summary.mean, `${scorer}: mean over ${summary.scored} cases`).toBeGreaterThanOrEqual(level);
      });
    }
  });
}

function checkLevels(option: string, levels: number | Record<string, number> | undefined): void {
  const values = typeof levels === 'number' ? [levels] : Object.values(levels ?? {});
  for (const value of values)
    if (!(typeof value === 'number' && value >= 0 && value <= 1))
      throw new EvalOptionsError(`describeEval: \`${option}\` must be a score from 0 to 1`);
}
