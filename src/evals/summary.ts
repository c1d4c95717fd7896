import { addUsage, zeroUsage } from '../runtime/usage/index.js';
import type { CaseResult, CaseStatus, EvalSummary, GroupBy, GroupSummary, ScorerSummary } from './types.js';

/** The group of a case that has none (its metadata lacks the key, or the function said undefined). */
export const NO_GROUP = '(none)';

/** The `q` quantile (0..1) of `values`, by the nearest-rank method; 0 for none. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Cases whose agent ran (scored, faulted or missed a recording): the ones latency and cost are over. */
export function ran(result: CaseResult): boolean {
  return result.status === 'settled' || result.status === 'faulted' || result.status === 'replay_miss';
}

/**
 * Mean and pass rate per scorer (over the cases that ran), tokens, cost, and latency percentiles; with
 * `groupBy`, the scorers' means and pass rates per group too.
 */
export function summarize(cases: readonly CaseResult[], scorerNames: readonly string[], groupBy?: GroupBy): EvalSummary {
  const statuses: Record<CaseStatus, number> = { settled: 0, faulted: 0, replay_miss: 0, skipped: 0, cancelled: 0 };
  const usage = zeroUsage();
  const judgeUsage = zeroUsage();
  let costUsd = 0;
  let unpriced = 0;
  let judgeCostUsd = 0;
  const latencies: number[] = [];
  for (const c of cases) {
    statuses[c.status]++;
    addUsage(usage, c.usage);
    addUsage(judgeUsage, c.judgeUsage);
    judgeCostUsd += c.judgeCostUsd ?? 0;
    if (!ran(c)) continue;
    latencies.push(c.latencyMs);
    if (c.costUsd === undefined) unpriced++;
    else costUsd += c.costUsd;
  }
  const scorers = scorerSummaries(cases, scorerNames);
  const mean = latencies.length === 0 ? 0 : latencies.reduce((a, b) => a + b, 0) / latencies.length;
  return {
    cases: cases.length,
    statuses,
    scorers,
    usage,
    costUsd,
    unpriced,
    judgeUsage,
    judgeCostUsd,
    latencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), mean },
    ...(groupBy === undefined ? {} : { groups: groupSummaries(cases, scorerNames, groupBy) }),
  };
}

/** Per group (`groupBy`, see `EvaluateOptions`), in group order (numbers in names compare as numbers): each scorer's summary. */
export function groupSummaries(cases: readonly CaseResult[], scorerNames: readonly string[], groupBy: GroupBy): GroupSummary[] {
  const groupOf =
    typeof groupBy === 'function'
      ? groupBy
      : (c: CaseResult) => {
          const value = c.metadata[groupBy];
          return value === undefined || value === null ? undefined : typeof value === 'string' ? value : JSON.stringify(value);
        };
  const groups = new Map<string, CaseResult[]>();
  for (const c of cases) {
    const group = groupOf(c) ?? NO_GROUP;
    if (!groups.has(group)) groups.set(group, []);
    groups.get(group)!.push(c);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([group, members]) => ({ group, cases: members.length, scorers: scorerSummaries(members, scorerNames) }));
}

function scorerSummaries(cases: readonly CaseResult[], scorerNames: readonly string[]): ScorerSummary[] {
  return scorerNames.map((name) => {
    const scores = cases.flatMap((c) => c.scores.filter((s) => s.name === name));
    const n = scores.length;
    return {
      name,
      scored: n,
      mean: n === 0 ? 0 : scores.reduce((sum, s) => sum + s.score, 0) / n,
      passRate: n === 0 ? 0 : scores.filter((s) => s.passed).length / n,
    };
  });
}
