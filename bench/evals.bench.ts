// Evaluation overhead per case: the same cases run by `evaluate` (a fresh session per case, the
// trajectory recorded, two scorers, each case's cost read back from its stored session) against the
// agent alone (the same definition opened in the same kind of session, the prompt submitted, the agent
// closed). One case at a time on both sides, on a file store, with an in-process model that calls a
// tool and then answers, so what differs is what the evaluation adds. Target: <= 1.1x. The journal
// (an fsynced line per case, written while the next case runs) is timed apart, as its cost is the
// disk's; so is an evaluation given no store (a case is priced from its run's usage events either way,
// so the two should match). Besides the medians of each side, the median of the per-round ratios: on a
// loaded machine the rounds drift, and a round's sides ran within seconds of each other. And the same
// for the process's CPU time (user + system) per side, which waiting on a shared disk does not inflate.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent } from '../src/entries/runtime.js';
import { SessionStore } from '../src/runtime/store/index.js';
import { contains, evaluate, trajectoryMatch, type EvalCase, type EvaluableAgent } from '../src/evals/index.js';
import type { ModelInvoker } from '../src/entries/runtime.js';
import type { ModelReply } from '../src/entries/models.js';
import { fmt, median, report } from './stats.js';
import { calculator } from '../tests/evals/scripted.js';

const CASES = 200;
const SAMPLES = 9;
const WARMUP = 2;

const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
const model: ModelInvoker = async (request) => {
  const last = request.messages.at(-1)!;
  const result = last.blocks.find((b) => b.kind === 'tool_result');
  if (result !== undefined)
    return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: `It is ${result.content}.` }] }, stopReason: 'end_turn', usage };
  const text = last.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('');
  const [, a, b] = /add (\d+) and (\d+)/.exec(text)!;
  const reply: ModelReply = {
    turn: {
      role: 'assistant',
      blocks: [{ kind: 'tool_call', id: `call_${a}`, name: 'calculator', input: { a: Number(a), b: Number(b) } }],
    },
    stopReason: 'tool_use',
    usage,
  };
  return reply;
};
const data: EvalCase[] = Array.from({ length: CASES }, (_, i) => ({
  id: `c${i}`,
  input: `add ${i} and ${i}`,
  expected: { output: String(2 * i), trajectory: ['calculator'] },
}));

const definitionIn = (store: SessionStore): EvaluableAgent => ({
  open: (o) => createAgent({ model: 'claude-haiku-5-5', tools: [calculator], sessionId: o?.sessionId }, { invokeModel: model, store }),
});

let round = 0;
async function inStore<T>(work: (store: SessionStore, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-bench-evals-'));
  try {
    return await work(new SessionStore(join(dir, 'sessions')), dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function agentAlone(): Promise<number> {
  return inStore(async (store) => {
    const definition = definitionIn(store);
    const started = performance.now();
    round++;
    for (const c of data) {
      const agent = definition.open({ sessionId: `alone-${round}-${c.id}` });
      await agent.submit(c.input as string);
      await agent.close();
    }
    return performance.now() - started;
  });
}

async function evaluated(journal: boolean, priced = true): Promise<number> {
  return inStore(async (store, dir) => {
    const started = performance.now();
    const result = await evaluate({
      name: 'bench',
      agent: definitionIn(store),
      ...(priced ? { store } : {}),
      data,
      concurrency: 1,
      scorers: [contains(), trajectoryMatch({ mode: 'strict' })],
      ...(journal ? { journal: join(dir, 'bench.journal') } : {}),
    });
    const elapsed = performance.now() - started;
    if (result.summary.statuses.settled !== CASES || result.summary.scorers.some((s) => s.passRate !== 1))
      throw new Error(`the bench evaluation did not pass every case: ${JSON.stringify(result.summary)}`);
    return elapsed;
  });
}

async function main(): Promise<void> {
  const sides = [
    { name: 'alone', run: agentAlone, times: [] as number[], cpu: [] as number[] },
    { name: 'evaluate', run: () => evaluated(false), times: [] as number[], cpu: [] as number[] },
    { name: 'journal', run: () => evaluated(true), times: [] as number[], cpu: [] as number[] },
    { name: 'unpriced', run: () => evaluated(false, false), times: [] as number[], cpu: [] as number[] },
  ];
  for (let i = 0; i < WARMUP; i++) for (const side of sides) await side.run();
  // Interleaved, so a change of load on a shared machine falls on every side alike; the order turns
  // each round, so no side always runs just after another's store was removed.
  for (let i = 0; i < SAMPLES; i++) {
    for (let j = 0; j < sides.length; j++) {
      const side = sides[(i + j) % sides.length];
      const cpu = process.cpuUsage();
      side.times.push(await side.run());
      const used = process.cpuUsage(cpu);
      side.cpu.push((used.user + used.system) / 1000);
    }
  }
  const [alone, plain, journaled, unpriced] = sides.map((side) => median(side.times));
  console.log(`evals: ${CASES} cases of one tool call and an answer, one at a time, file store; median of ${SAMPLES}`);
  console.log(`  agent alone   ${fmt((alone * 1000) / CASES)} us/case`);
  console.log(`  evaluate      ${fmt((plain * 1000) / CASES)} us/case`);
  console.log(`  with journal  ${fmt((journaled * 1000) / CASES)} us/case`);
  console.log(`  no store      ${fmt((unpriced * 1000) / CASES)} us/case`);
  report('evals: evaluate against the agent alone, per case', plain / CASES, alone / CASES, 'ms', 1.1);
  report('evals: evaluate with a journal (fsync per case) against the agent alone', journaled / CASES, alone / CASES, 'ms');
  report('evals: evaluate with no store against the agent alone', unpriced / CASES, alone / CASES, 'ms');
  const perRound = (side: (typeof sides)[number], of: 'times' | 'cpu') => median(side[of].map((t, i) => t / sides[0][of][i])).toFixed(2);
  for (const of of ['times', 'cpu'] as const) {
    console.log(
      `  per-round ratio medians (${of === 'times' ? 'wall' : 'CPU'}): evaluate ${perRound(sides[1], of)}x, journal ${perRound(sides[2], of)}x, no store ${perRound(sides[3], of)}x`,
    );
  }
  console.log(
    `  CPU per case: agent alone ${fmt((median(sides[0].cpu) * 1000) / CASES)} us, evaluate ${fmt((median(sides[1].cpu) * 1000) / CASES)} us`,
  );
}

await main();
