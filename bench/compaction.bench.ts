// Per-model-call planning cost of condensation as history grows. The conductor asks the Compactor
// before every model call (plan) and feeds it the reported usage after (observeUsage); a tool loop
// appends two turns per call. Subject: that per-call work at 10, 1,000 and 10,000 turns of history.
// Baseline, in the same run: the naive decision, a full estimateContextTokens of the history per call.
// Target: the 10,000-turn cost within 2x of the 10-turn cost.
import { estimateContextTokens, type ModelInvoker, type Turn } from '../src/entries/runtime.js';
import { Compactor } from '../src/runtime/compaction/index.js';
import { modelCard } from '../src/runtime/models/index.js';
import { fmt, median, now, report } from './stats.js';

const SIZES = [10, 1_000, 10_000];
const CALLS_PER_BATCH = 50;
const BATCHES = 200;

const card = modelCard('bench-model', { contextWindow: 1_000_000_000 });
const neverCalled: ModelInvoker = async () => {
  throw new Error('planning never calls the model');
};

/** A tool loop: assistant calls with small JSON inputs, user turns with ~600-character results. */
function loopTurns(count: number, offset: number): Turn[] {
  const out: Turn[] = [];
  for (let i = 0; i < count; i++) {
    const id = `toolu_${offset + i}`;
    out.push(
      i % 2 === 0
        ? {
            role: 'assistant',
            blocks: [
              { kind: 'text', text: 'Reading the next file.' },
              { kind: 'tool_call', id, name: 'files_read', input: { path: `/repo/src/module-${i}.ts` } },
            ],
          }
        : {
            role: 'user',
            blocks: [{ kind: 'tool_result', callId: `toolu_${offset + i - 1}`, content: `export const v${i} = 1;\n`.repeat(25) }],
          },
    );
  }
  return out;
}

type Strategy = (base: Turn[], appended: Turn[]) => number;

/** `base` in an array that already has room for `appended`, so no push in the timed loop copies it. */
function withHeadroom(base: Turn[], appended: Turn[]): Turn[] {
  const history = base.concat(appended);
  history.length = base.length;
  return history;
}

/** Per-call microseconds of one batch: prime outside the clock, then time CALLS_PER_BATCH steps. */
const incremental: Strategy = (base, appended) => {
  const history = withHeadroom(base, appended);
  const condenser = new Compactor({ card, policy: {}, invokeModel: neverCalled, systemText: 'You are a careful engineer.' });
  condenser.plan(history);
  let sink = 0;
  const t0 = now();
  for (let i = 0; i < CALLS_PER_BATCH; i++) {
    history.push(appended[2 * i], appended[2 * i + 1]);
    sink += condenser.plan(history).estimatedTokens;
    condenser.observeUsage(history, sink % 1_000_000);
  }
  const elapsed = now() - t0;
  if (sink < 0) throw new Error('unreachable');
  return (elapsed * 1000) / CALLS_PER_BATCH;
};

const naive: Strategy = (base, appended) => {
  const history = withHeadroom(base, appended);
  let sink = 0;
  const t0 = now();
  for (let i = 0; i < CALLS_PER_BATCH; i++) {
    history.push(appended[2 * i], appended[2 * i + 1]);
    sink += estimateContextTokens(history);
  }
  const elapsed = now() - t0;
  if (sink < 0) throw new Error('unreachable');
  return (elapsed * 1000) / CALLS_PER_BATCH;
};

function measure(strategy: Strategy, size: number, batches: number): number {
  const base = loopTurns(size, 0);
  const appended = loopTurns(2 * CALLS_PER_BATCH, size);
  const samples: number[] = [];
  for (let b = 0; b < batches; b++) samples.push(strategy(base, appended));
  (globalThis as { gc?: () => void }).gc?.();
  return median(samples);
}

// Warm the JIT on every path before anything is recorded.
for (const size of SIZES) {
  measure(incremental, size, 20);
  measure(naive, size, 5);
}

const planCost = new Map<number, number>();
const naiveCost = new Map<number, number>();
for (const size of SIZES) {
  planCost.set(size, measure(incremental, size, BATCHES));
  naiveCost.set(size, measure(naive, size, size >= 10_000 ? 40 : BATCHES));
  console.log(
    `${String(size).padStart(6)} turns: Compactor ${fmt(planCost.get(size)!)} µs/call, full re-estimate ${fmt(naiveCost.get(size)!)} µs/call`,
  );
}

const [small, large] = [SIZES[0], SIZES[SIZES.length - 1]];
report('Compactor per-call planning, 10,000 vs 10 turns', planCost.get(large)!, planCost.get(small)!, 'µs', 2);
report('full re-estimate per call, 10,000 vs 10 turns (for contrast)', naiveCost.get(large)!, naiveCost.get(small)!, 'µs');
report('full re-estimate vs Compactor at 10,000 turns (the saving)', naiveCost.get(large)!, planCost.get(large)!, 'µs');
