// Small shared helpers for the benchmarks: timing, percentiles and a uniform report line.
export function now(): number {
  return performance.now();
}

/** Runs `fn` `times` times and returns each run's duration in milliseconds. */
export async function sample(times: number, fn: () => unknown): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = now();
    await fn();
    out.push(now() - t0);
  }
  return out;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

/** Prints `label: subject X vs baseline Y = ratio R (target T)`, flagging a miss. */
export function report(label: string, subject: number, baseline: number, unit: string, target?: number): void {
  const ratio = subject / baseline;
  const verdict = target === undefined ? '' : ratio <= target ? `  (target <= ${target}x: met)` : `  (target <= ${target}x: MISSED)`;
  // Two decimals hide a ratio far below 1 (0.004x would print as 0.00x).
  const shown = ratio < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2);
  console.log(`${label}: ${fmt(subject)} ${unit} vs baseline ${fmt(baseline)} ${unit} = ${shown}x${verdict}`);
}

export function fmt(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(3);
}

/**
 * The summary of an indexed search against the linear-scan baseline, both in microseconds per query:
 * the indexed p50/p99 against `targetP50Us`, the scan's, the two ratios and the speed-up at p50.
 */
export function reportSearchVsScan(title: string, label: string, indexed: number[], scanned: number[], targetP50Us: number): void {
  const p50 = percentile(indexed, 50);
  const p99 = percentile(indexed, 99);
  console.log(`${title}: p50 ${fmt(p50)} us, p99 ${fmt(p99)} us (target p50 < ${targetP50Us} us: ${p50 < targetP50Us ? 'met' : 'MISSED'})`);
  console.log(`linear scan, ${scanned.length} queries: p50 ${fmt(percentile(scanned, 50))} us, p99 ${fmt(percentile(scanned, 99))} us`);
  report(`${label} p50 vs linear scan`, p50, percentile(scanned, 50), 'us');
  report(`${label} p99 vs linear scan`, p99, percentile(scanned, 99), 'us');
  console.log(`speed-up at p50: ${fmt(percentile(scanned, 50) / p50)}x faster than the scan`);
}

/** Runs `run` once per item, awaited, and returns each run's duration in microseconds. */
export async function timeEach<T>(items: readonly T[], run: (item: T) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (const item of items) {
    const start = now();
    await run(item);
    out.push((now() - start) * 1000);
  }
  return out;
}

/** `timeEach` in milliseconds, for searches and writes that take whole milliseconds. */
export async function timeEachMs<T>(items: readonly T[], run: (item: T) => unknown): Promise<number[]> {
  return (await timeEach(items, run)).map((us) => us / 1000);
}
