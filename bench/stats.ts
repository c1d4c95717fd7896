// Small shared helpers for the benchmarks: timing, percentiles and a uniform report line.
export function now(): number {
  return performance.now();
}

/** Runs `fn` `times` times and returns each run's duration in milliseconds. */
export async function sample(times: number, fn: () => unknown | Promise<unknown>): Promise<number[]> {
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
  console.log(`${label}: ${fmt(subject)} ${unit} vs baseline ${fmt(baseline)} ${unit} = ${ratio.toFixed(2)}x${verdict}`);
}

export function fmt(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toPrecision(3);
}
