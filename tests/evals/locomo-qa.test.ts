// LoCoMo question answering on the hand-made fixture, with a scripted answerer and a scripted judge
// behind the ModelInvoker seam. The answerer answers with the first memory recalled into its context;
// the judge scores 1 when the answer contains the gold answer. With k = 1 and the hand-ranked store of
// locomo-support.ts, the top memory per question (worked out in memory-recall.test.ts) gives:
//   tiny-q001 "puppy" -> D1:1 "...named Biscuit."    gold Biscuit               1
//   tiny-q002         -> D1:2 "...learning the violin." gold "violin, at a concert" 0
//   tiny-q003         -> D2:1 "...a concert last Saturday." gold "15 April 2023"   0
//   tiny-q004 "cat"   -> nothing recalled: "I do not know."                         0
//   tiny-q006         -> D2:3 "...visit your sister..." gold Lisbon                  0
//   tiny2-q001        -> D1:1 "I grow tomatoes..."     gold tomatoes                 1
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evaluate, LOCOMO_ANSWER_SYSTEM, loadLocomo, locomoQaEval, textSummary } from '../../src/evals/index.js';
import { MEMORY_BLOCK_HEADER } from '../../src/memory/index.js';
import type { ModelInvoker, ModelReply, ModelRequest } from '../../src/runtime/index.js';
import { TINY, wordCountStore } from './locomo-support.js';
import { scratchStore } from './scripted.js';

const MODEL = 'claude-haiku-4-5'; // $1 in, $5 out per million tokens

function reply(text: string, inputTokens: number, outputTokens: number): ModelReply {
  return {
    turn: { role: 'assistant', blocks: [{ kind: 'text', text }] },
    stopReason: 'end_turn',
    usage: { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 },
  };
}

function textOf(request: ModelRequest): string {
  return request.messages
    .flatMap((t) => t.blocks)
    .flatMap((b) => (b.kind === 'text' ? [b.text] : []))
    .join('');
}

/** Answers with the first recalled memory (after its "[date] Speaker: " part), else that it does not know. */
function scriptedAnswerer(): ModelInvoker & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const invoke = async (request: ModelRequest) => {
    requests.push(request);
    // Recalled memory changes from question to question: it comes after the cached system prompt.
    const lines = (request.volatileSystem ?? '').split('\n');
    const first = lines.indexOf(MEMORY_BLOCK_HEADER);
    const memory = first < 0 ? undefined : lines[first + 1]?.replace(/^- \[[^\]]*\] \w+: /, '');
    return reply(memory ?? 'I do not know.', 100, 20);
  };
  return Object.assign(invoke, { modelId: MODEL, requests });
}

/** Scores 1 when the answer contains the expected answer, as the `{ score, reason }` JSON asked for. */
function scriptedJudge(): ModelInvoker & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  const invoke = async (request: ModelRequest) => {
    requests.push(request);
    const text = textOf(request);
    const answer = /<answer>\n([\s\S]*?)\n<\/answer>/.exec(text)![1];
    const expected = /<expected>\n([\s\S]*?)\n<\/expected>/.exec(text)![1];
    const right = answer.toLowerCase().includes(expected.toLowerCase());
    return reply(JSON.stringify({ score: right ? 1 : 0, reason: right ? 'gives the gold answer' : `does not say ${expected}` }), 50, 10);
  };
  return Object.assign(invoke, { modelId: MODEL, requests });
}

let scratch: Awaited<ReturnType<typeof scratchStore>>;
beforeEach(async () => {
  scratch = await scratchStore();
});
afterEach(() => scratch.cleanup());

describe('locomoQaEval', () => {
  it('answers each question from recalled memory and has the judge grade it: two model calls a question', async () => {
    const data = await loadLocomo(TINY);
    const answerer = scriptedAnswerer();
    const judge = scriptedJudge();
    const options = await locomoQaEval({ data, answerer, judge, k: 1, memory: () => wordCountStore(), sessions: scratch.store });
    const result = await evaluate({ ...options, concurrency: 2 });

    expect(result.cases.map((c) => c.id)).toEqual(['tiny-q001', 'tiny-q002', 'tiny-q003', 'tiny-q004', 'tiny-q006', 'tiny2-q001']);
    expect(result.summary.statuses.settled).toBe(6);
    // Two calls per question: one answer, one verdict.
    expect(answerer.requests).toHaveLength(6);
    expect(judge.requests).toHaveLength(6);

    // The answerer saw its instructions and the top memory of the question's own conversation, dated; no tools.
    const asked = (question: string) => answerer.requests.find((r) => textOf(r) === question)!;
    const puppy = asked("What is the name of Ana's puppy?");
    expect(puppy.volatileSystem).toBe(`${MEMORY_BLOCK_HEADER}\n- [10:00 am on 3 March, 2023] Ana: I adopted a puppy named Biscuit.`);
    expect(puppy.system).toBe(LOCOMO_ANSWER_SYSTEM);
    expect(puppy.tools).toEqual([]);
    expect(asked('What does Dee grow in the garden?').volatileSystem).toBe(
      `${MEMORY_BLOCK_HEADER}\n- [9:15 pm on 1 June, 2023] Dee: I grow tomatoes in my garden.`,
    );
    expect(asked('Would Ana like a cat?').volatileSystem).toBeUndefined();

    const correct = (id: string) => result.cases.find((c) => c.id === id)!.scores[0];
    expect(correct('tiny-q001')).toMatchObject({ name: 'correct', score: 1, reason: 'gives the gold answer', passed: true });
    expect(correct('tiny-q003')).toMatchObject({ score: 0, reason: 'does not say 15 April 2023' });
    expect(result.cases.find((c) => c.id === 'tiny-q004')!.output).toBe('I do not know.');
    expect(result.summary.scorers).toEqual([{ name: 'correct', mean: 2 / 6, passRate: 2 / 6, scored: 6 }]);
    expect(result.summary.groups!.map((g) => [g.group, g.cases, g.scorers[0].mean])).toEqual([
      ['1 multi-hop', 1, 0],
      ['2 temporal', 1, 0],
      ['3 open-domain', 1, 0],
      ['4 single-hop', 3, 2 / 3],
    ]);
    expect(textSummary(result)).toMatch(/3 open-domain +1 +0\.000/);

    // The answerer's cost is read from its stored sessions (100 in, 20 out at $1/$5 per million: $0.0002
    // a case); the judge's is counted apart (50 in, 10 out: $0.0001 a case).
    expect(result.summary.costUsd).toBeCloseTo(6 * 0.0002, 10);
    expect(result.summary.unpriced).toBe(0);
    expect(result.summary.judgeCostUsd).toBeCloseTo(6 * 0.0001, 10);
    expect(result.summary.judgeUsage).toMatchObject({ inputTokens: 300, outputTokens: 60 });
    expect(result.cases[0].sessionId).toMatch(/^locomo-qa-\w+-tiny-q001$/);
  });

  it('keeps to the categories asked for', async () => {
    const data = await loadLocomo(TINY);
    const answerer = scriptedAnswerer();
    const options = await locomoQaEval({ data, answerer, judge: scriptedJudge(), categories: [1, 2] });
    expect(options.data).toHaveLength(2);
    const result = await evaluate(options);
    expect(result.cases.map((c) => c.id)).toEqual(['tiny-q002', 'tiny-q003']);
    // The default store (in process, words) recalls the concert turn for the concert question.
    expect(answerer.requests.find((r) => textOf(r) === 'When was the concert?')!.volatileSystem).toContain('a concert last Saturday');
  });

  it('refuses to run without what it needs, and its agent outside evaluate', async () => {
    const data = await loadLocomo(TINY);
    const judge = scriptedJudge();
    const bare: ModelInvoker = async () => reply('x', 1, 1);
    await expect(locomoQaEval({ data, answerer: bare, judge })).rejects.toThrow(/the answerer carries no model id; give `answererId`/);
    await expect(locomoQaEval({ data, answerer: scriptedAnswerer(), judge: bare })).rejects.toThrow(/give `judgeId`/);
    await expect(locomoQaEval({ data, answerer: scriptedAnswerer(), judge, k: 0 })).rejects.toThrow(/`k` must be a whole number/);
    await expect(locomoQaEval({ data, answerer: undefined as never, judge })).rejects.toThrow(/`answerer` must be a ModelInvoker/);
    const options = await locomoQaEval({ data, answerer: bare, answererId: MODEL, judge });
    expect(() => options.agent.open({ sessionId: 's' })).toThrow(/open it through evaluate/);
  });
});
