// Two evaluation runs side by side: per case and per scorer, which one scored higher; cost and latency
// deltas; and whether a scorer's difference is more than noise (a paired sign test and a paired bootstrap).
import { EvalOptionsError } from './errors.js';
import { percentile, ran } from './summary.js';
import type { CaseResult, EvalResult } from './types.js';

export type ScorerComparison = {
  name: string;
  /** Cases the candidate scored higher on, lower on, and the same. */
  wins: number;
  losses: number;
  ties: number;
  /** Mean of (candidate - baseline) over the paired cases. */
  meanDelta: number;
  /** Two-sided exact sign test over the cases that differ: the chance of a split this uneven if neither run is better. */
  signTestP: number;
  /** Two-sided paired bootstrap of the mean difference (seeded, so the same runs give the same p). */
  bootstrapP: number;
  /** `better` or `worse` when both tests put p under `alpha`, else `same`. */
  verdict: 'better' | 'worse' | 'same';
};

export type CaseComparison = {
  id: string;
  /** Per scorer: the baseline's score and the candidate's. */
  scores: Record<string, { baseline: number; candidate: number }>;
  costDeltaUsd?: number;
  latencyDeltaMs: number;
};

export type Delta = { baseline: number; candidate: number; delta: number };

export type Comparison = {
  baseline: { name: string; runId: string };
  candidate: { name: string; runId: string };
  /** Cases in both runs (by id), and those only one of them has (not compared). */
  paired: number;
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  scorers: ScorerComparison[];
  costUsd: Delta;
  latencyMs: { p50: Delta; p95: Delta };
  cases: CaseComparison[];
  alpha: number;
};

export type CompareOptions = {
  /** Significance level. Default 0.05. */
  alpha?: number;
  /** Bootstrap resamples. Default 10,000. */
  resamples?: number;
  seed?: number;
};

/**
 * Compares `candidate` with `baseline`, case by case (paired by case id): for every scorer both ran,
 * wins, losses and ties, the mean difference and its p-values. Cost and latency are over the paired
 * cases that ran in both.
 */
export function compare(baseline: EvalResult, candidate: EvalResult, options: CompareOptions = {}): Comparison {
  if (!Array.isArray(baseline?.cases) || !Array.isArray(candidate?.cases))
    throw new EvalOptionsError('compare takes two evaluation results');
  const alpha = options.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new EvalOptionsError('compare: `alpha` must be between 0 and 1');
  const resamples = options.resamples ?? 10_000;
  if (!(Number.isInteger(resamples) && resamples >= 100)) throw new EvalOptionsError('compare: `resamples` must be a whole number >= 100');

  const byId = new Map(candidate.cases.map((c) => [c.id, c]));
  const baseIds = new Set(baseline.cases.map((c) => c.id));
  const pairs: Array<[CaseResult, CaseResult]> = baseline.cases.flatMap((c) =>
    byId.has(c.id) ? [[c, byId.get(c.id)!] as [CaseResult, CaseResult]] : [],
  );
  const names = [...new Set(baseline.summary.scorers.map((s) => s.name))].filter((name) =>
    candidate.summary.scorers.some((s) => s.name === name),
  );

  const scorers = names.map((name): ScorerComparison => {
    const diffs: number[] = [];
    for (const [a, b] of pairs) {
      const sa = a.scores.find((s) => s.name === name);
      const sb = b.scores.find((s) => s.name === name);
      if (sa !== undefined && sb !== undefined) diffs.push(sb.score - sa.score);
    }
    const wins = diffs.filter((d) => d > 0).length;
    const losses = diffs.filter((d) => d < 0).length;
    const signTestP = signTest(wins, losses);
    const bootstrapP = bootstrap(diffs, resamples, options.seed ?? 1);
    const meanDelta = diffs.length === 0 ? 0 : diffs.reduce((x, y) => x + y, 0) / diffs.length;
    const significant = signTestP < alpha && bootstrapP < alpha;
    return {
      name,
      wins,
      losses,
      ties: diffs.length - wins - losses,
      meanDelta,
      signTestP,
      bootstrapP,
      verdict: significant ? (meanDelta > 0 ? 'better' : 'worse') : 'same',
    };
  });

  const bothRan = pairs.filter(([a, b]) => ran(a) && ran(b));
  const cost = (side: 0 | 1) => bothRan.reduce((sum, pair) => sum + (pair[side].costUsd ?? 0), 0);
  const latency = (side: 0 | 1, q: number) =>
    percentile(
      bothRan.map((pair) => pair[side].latencyMs),
      q,
    );
  const delta = (baselineValue: number, candidateValue: number): Delta => ({
    baseline: baselineValue,
    candidate: candidateValue,
    delta: candidateValue - baselineValue,
  });

  return {
    baseline: { name: baseline.name, runId: baseline.runId },
    candidate: { name: candidate.name, runId: candidate.runId },
    paired: pairs.length,
    onlyInBaseline: baseline.cases.filter((c) => !byId.has(c.id)).map((c) => c.id),
    onlyInCandidate: candidate.cases.filter((c) => !baseIds.has(c.id)).map((c) => c.id),
    scorers,
    costUsd: delta(cost(0), cost(1)),
    latencyMs: { p50: delta(latency(0, 0.5), latency(1, 0.5)), p95: delta(latency(0, 0.95), latency(1, 0.95)) },
    cases: pairs.map(([a, b]) => ({
      id: a.id,
      scores: Object.fromEntries(
        names.flatMap((name) => {
          const sa = a.scores.find((s) => s.name === name);
          const sb = b.scores.find((s) => s.name === name);
          return sa && sb ? [[name, { baseline: sa.score, candidate: sb.score }]] : [];
        }),
      ),
      costDeltaUsd: a.costUsd === undefined || b.costUsd === undefined ? undefined : b.costUsd - a.costUsd,
      latencyDeltaMs: b.latencyMs - a.latencyMs,
    })),
    alpha,
  };
}

/** Two-sided exact binomial sign test: P(a split at least this uneven | p = 1/2), in log space so thousands of cases do not underflow. */
export function signTest(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  const k = Math.min(wins, losses);
  const logFactorial = new Float64Array(n + 1);
  for (let i = 1; i <= n; i++) logFactorial[i] = logFactorial[i - 1] + Math.log(i);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logFactorial[n] - logFactorial[i] - logFactorial[n - i] - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/**
 * Two-sided paired bootstrap: resample the differences with replacement, and count how often the
 * resampled mean falls on each side of 0; p is twice the smaller share (1 when nothing differs).
 */
export function bootstrap(diffs: readonly number[], resamples: number, seed: number): number {
  if (diffs.length === 0 || diffs.every((d) => d === 0)) return 1;
  const random = mulberry32(seed);
  let atMostZero = 0;
  let atLeastZero = 0;
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < diffs.length; i++) sum += diffs[Math.floor(random() * diffs.length)];
    if (sum <= 0) atMostZero++;
    if (sum >= 0) atLeastZero++;
  }
  return Math.min(1, (2 * Math.min(atMostZero, atLeastZero)) / resamples);
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
