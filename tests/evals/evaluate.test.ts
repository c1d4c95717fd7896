import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  contains,
  EvalDataError,
  EvalOptionsError,
  evaluate,
  exactMatch,
  htmlReport,
  jsonSchema,
  modelJudge,
  numericCloseness,
  regex,
  scorer,
  structuredEqual,
  textSummary,
  trajectoryMatch,
  type EvalCase,
} from '../../src/evals/index.js';
import { loadSession } from '../../src/runtime/store/index.js';
import { sessionCost } from '../../src/runtime/usage/index.js';
import type { ModelInvoker, ModelRequest } from '../../src/runtime/index.js';
import { agentConfig, definition, MODEL, scratchStore, scriptedModel } from './scripted.js';

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.map((c) => c()));
  cleanups = [];
});

async function setup() {
  const scratch = await scratchStore();
  cleanups.push(scratch.cleanup);
  const model = scriptedModel();
  const agent = definition(agentConfig(), { invokeModel: model, store: scratch.store });
  return { ...scratch, model, agent };
}

const FIVE: EvalCase[] = [
  {
    id: 'paris',
    input: 'What is the weather in Paris?',
    expected: { output: 'sunny', trajectory: [{ name: 'weather', input: { city: 'Paris' } }] },
  },
  { id: 'oslo', input: 'What is the weather in Oslo?', expected: { output: 'sunny', trajectory: ['weather'] } },
  { id: 'sum', input: 'Please add 2 and 40', expected: { output: '42', trajectory: ['calculator'] } },
  { id: 'deep', input: 'research owls', expected: { output: 'owls', trajectory: ['researcher'] } },
  { id: 'hello', input: 'hello there', expected: { output: 'echo: hello there', trajectory: [] } },
];

describe('evaluate', () => {
  it('runs each case in its own session of the store and reports output, trajectory, usage, cost, latency and scores', async () => {
    const { agent, store } = await setup();
    const result = await evaluate({
      name: 'five',
      agent,
      data: FIVE,
      store,
      concurrency: 2,
      scorers: [
        contains(),
        trajectoryMatch({ mode: 'strict' }),
        trajectoryMatch({ mode: 'subset', nested: true, expected: ['researcher', 'lookup'], name: 'deep_calls' }),
      ],
    });
    expect(result.status).toBe('done');
    expect(result.cases.map((c) => c.status)).toEqual(['settled', 'settled', 'settled', 'settled', 'settled']);
    const [paris, oslo, sum, deep, hello] = result.cases;
    expect(paris.output).toBe('The answer: sunny, 21C');
    expect(paris.trajectory).toEqual([
      { name: 'weather', callId: expect.any(String), input: { city: 'Paris' }, result: 'sunny, 21C', isError: false },
    ]);
    expect(paris.scores.map((s) => [s.name, s.score, s.passed])).toEqual([
      ['contains', 1, true],
      ['trajectory_strict', 1, true],
      ['deep_calls', 0, false],
    ]);
    expect(oslo.scores[0]).toMatchObject({ score: 0, passed: false, reason: 'missing "sunny"' });
    expect(sum.output).toBe('The answer: 42');
    // The sub-agent's own call sits under the agent tool that ran it, with the sub-agent's session.
    expect(deep.trajectory).toHaveLength(1);
    expect(deep.trajectory[0]).toMatchObject({
      name: 'researcher',
      children: [{ name: 'lookup', input: { topic: 'owls' }, result: 'owls is well documented' }],
    });
    expect(deep.scores.find((s) => s.name === 'deep_calls')).toMatchObject({ score: 1 });
    expect(hello.trajectory).toEqual([]);

    // Two model calls per tool case, four with the sub-agent, one for the echo: 100 in, 20 out each,
    // priced at the card of claude-haiku-5-5 ($1 / $5 per million) from the sessions as stored.
    const calls = [2, 2, 2, 4, 1];
    result.cases.forEach((c, i) => {
      expect(c.usage).toMatchObject({ inputTokens: 100 * calls[i], outputTokens: 20 * calls[i] });
      expect(c.costUsd).toBeCloseTo((calls[i] * (100 * 1 + 20 * 5)) / 1e6, 12);
      expect(c.latencyMs).toBeGreaterThan(0);
    });
    // Any case can be opened afterwards like any session.
    const graph = await loadSession(store, paris.sessionId);
    expect(paris.sessionId).toBe(`five-${result.runId}-paris`);
    expect(graph.pathTo(graph.leaf!).map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    expect(result.summary.cases).toBe(5);
    expect(result.summary.scorers.find((s) => s.name === 'contains')).toEqual({ name: 'contains', mean: 0.8, passRate: 0.8, scored: 5 });
    expect(result.summary.scorers.find((s) => s.name === 'trajectory_strict')).toMatchObject({ mean: 1, passRate: 1 });
    expect(result.summary.costUsd).toBeCloseTo((11 * 200) / 1e6, 12);
    expect(result.summary.unpriced).toBe(0);
    const latencies = result.cases.map((c) => c.latencyMs).sort((a, b) => a - b);
    expect(result.summary.latencyMs.p50).toBe(latencies[2]);
    expect(result.summary.latencyMs.p95).toBe(latencies[4]);
  });

  it('reads the cases from a JSONL file, and names the line of one it cannot read', async () => {
    const { agent, dir } = await setup();
    const file = join(dir, 'cases.jsonl');
    await writeFile(
      file,
      FIVE.slice(0, 2)
        .map((c) => JSON.stringify(c))
        .join('\n') + '\n\n',
    );
    const result = await evaluate({ agent, data: file, scorers: [contains()] });
    expect(result.cases.map((c) => c.id)).toEqual(['paris', 'oslo']);
    // Without a store a case is still priced, from its run's usage: two calls at $1 / $5 per million.
    expect(result.cases[0].costUsd).toBeCloseTo((2 * 200) / 1e6, 12);
    expect(result.summary.unpriced).toBe(0);

    await writeFile(file, `${JSON.stringify(FIVE[0])}\n{"input": 3}\n`);
    await expect(evaluate({ agent, data: file, scorers: [] })).rejects.toSatisfy(
      (e) => EvalDataError.isInstance(e) && /cases\.jsonl:2: `input` must be/.test((e as Error).message),
    );
    await writeFile(file, 'not json\n');
    await expect(evaluate({ agent, data: file, scorers: [] })).rejects.toThrow(/cases\.jsonl:1: not JSON/);
  });

  it('prices each case from its run as its stored sessions price it: by the model that answered, sub-agents included', async () => {
    const scratch = await scratchStore();
    cleanups.push(scratch.cleanup);
    const { store } = scratch;
    const scripted = scriptedModel();
    // The researcher's replies come from another model (as a fallback's would): priced at that model's card,
    // and a reply from a model with no card leaves its case unpriced rather than free.
    const invokeModel: ModelInvoker = async (request) => {
      const reply = await scripted(request);
      if (request.system?.includes('researcher')) return { ...reply, model: 'claude-sonnet-5-5' };
      if (/mystery/.test(JSON.stringify(request.messages))) return { ...reply, model: 'no-such-model' };
      return reply;
    };
    const agent = definition(agentConfig(), { invokeModel, store });
    const data = [
      { id: 'deep', input: 'research owls' },
      { id: 'sum', input: 'Please add 2 and 40' },
      { id: 'odd', input: 'a mystery' },
    ];
    const result = await evaluate({ name: 'priced', agent, store, data, scorers: [] });
    const [deep, sum, odd] = result.cases;
    // Two calls of the agent at claude-haiku-5-5 ($1 / $5), two of the researcher at claude-sonnet-5-5 ($3 / $15).
    expect(deep.costUsd).toBeCloseTo((2 * 200 + 2 * 600) / 1e6, 12);
    expect(sum.costUsd).toBeCloseTo((2 * 200) / 1e6, 12);
    expect(odd.costUsd).toBeUndefined();
    expect(result.summary.unpriced).toBe(1);
    // The same figures as the stored replies give, the sub-agent's session with the case's.
    const stored = async (...ids: string[]) => {
      const nodes = [];
      for (const id of ids) nodes.push(...(await loadSession(store, id, { whole: true })).allNodes());
      return sessionCost(nodes);
    };
    expect(deep.trajectory[0].sessionId).toEqual(expect.any(String));
    expect((await stored(deep.sessionId, deep.trajectory[0].sessionId!)).cost?.usd).toBeCloseTo(deep.costUsd!, 12);
    expect((await stored(sum.sessionId)).cost?.usd).toBeCloseTo(sum.costUsd!, 12);
    expect((await stored(odd.sessionId)).unpriced).toEqual(['no-such-model']);
  });

  it('records a failed run as a faulted case, unscored, and goes on with the others', async () => {
    const { agent, store } = await setup();
    const result = await evaluate({ agent, store, data: [{ input: 'please fail' }, { input: 'hi' }], scorers: [regex(/^echo/)] });
    expect(result.cases[0]).toMatchObject({
      status: 'faulted',
      error: { kind: 'model_error' },
      scores: [{ name: 'regex', score: 0, passed: false }],
    });
    expect(result.cases[1]).toMatchObject({ status: 'settled', output: 'echo: hi', scores: [{ score: 1, passed: true }] });
    expect(result.summary.statuses).toMatchObject({ settled: 1, faulted: 1 });
  });

  it('starts no case once the limits are spent, and stops on the signal', async () => {
    const { agent, model } = await setup();
    const cases = Array.from({ length: 6 }, (_, i) => ({ input: `hello ${i}` }));
    // Each echo case costs 120 tokens: after two, 240 >= 240, so the rest are skipped.
    const limited = await evaluate({ agent, data: cases, scorers: [], concurrency: 1, limits: { maxTokens: 240 } });
    expect(limited.status).toBe('limited');
    expect(limited.cases.map((c) => c.status)).toEqual(['settled', 'settled', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(model.calls).toBe(2);
    // A cost budget needs no store (each case is priced from its run): 200 micro-dollars an echo, two pass 300.
    const costed = await evaluate({ agent, data: cases, scorers: [], concurrency: 1, limits: { maxCostUsd: 300 / 1e6 } });
    expect(costed.cases.map((c) => c.status)).toEqual(['settled', 'settled', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(model.calls).toBe(4);

    const controller = new AbortController();
    const cancelled = await evaluate({
      agent,
      data: cases,
      scorers: [],
      concurrency: 1,
      signal: controller.signal,
      onProgress: ({ done }) => done === 3 && controller.abort(),
    });
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.cases.map((c) => c.status)).toEqual(['settled', 'settled', 'settled', 'cancelled', 'cancelled', 'cancelled']);
  });

  it('runs a case given as a conversation from its earlier turns', async () => {
    const { agent, store } = await setup();
    const result = await evaluate({
      agent,
      store,
      data: [
        {
          input: {
            messages: [
              { role: 'user', blocks: [{ kind: 'text', text: 'research cats' }] },
              { role: 'assistant', blocks: [{ kind: 'text', text: 'noted' }] },
              { role: 'user', blocks: [{ kind: 'text', text: 'what next?' }] },
            ],
          },
        },
      ],
      scorers: [exactMatch()],
    });
    const graph = await loadSession(store, result.cases[0].sessionId);
    expect(graph.pathTo(graph.leaf!).map((t) => t.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)).join(''))).toEqual([
      'research cats',
      'noted',
      'what next?',
      'echo: what next?',
    ]);
  });

  it('refuses options it cannot run with before any case runs', async () => {
    const { agent, model } = await setup();
    await expect(evaluate({ agent: {} as never, data: FIVE, scorers: [] })).rejects.toThrow(EvalOptionsError);
    await expect(evaluate({ agent, data: FIVE, scorers: [contains(), contains()] })).rejects.toThrow(/two scorers are named "contains"/);
    await expect(evaluate({ agent, data: FIVE, scorers: [], concurrency: 0 })).rejects.toThrow(/concurrency/);
    await expect(
      evaluate({
        agent,
        data: [
          { id: 'a', input: 'x' },
          { id: 'a', input: 'y' },
        ],
        scorers: [],
      }),
    ).rejects.toThrow(/two cases have the id "a"/);
    await expect(evaluate({ agent, data: FIVE, scorers: [], groupBy: 42 as never })).rejects.toThrow(/`groupBy` must be a metadata key/);
    expect(model.calls).toBe(0);
  });

  it('groups the summary by a metadata key: per group the scorers mean and pass rate, in group order', async () => {
    const { agent, store } = await setup();
    const topics = ['weather', 'weather', 'math', undefined, 'chat'];
    const data = FIVE.map((c, i) => ({ ...c, metadata: topics[i] === undefined ? {} : { topic: topics[i] } }));
    const result = await evaluate({ agent, store, data, scorers: [contains()], groupBy: 'topic' });
    // paris passes (sunny), oslo fails (rain), sum and hello pass, deep (no topic) is in (none).
    expect(result.summary.groups!.map((g) => [g.group, g.cases, g.scorers[0].mean, g.scorers[0].passRate])).toEqual([
      ['(none)', 1, 1, 1],
      ['chat', 1, 1, 1],
      ['math', 1, 1, 1],
      ['weather', 2, 0.5, 0.5],
    ]);
    expect(textSummary(result)).toMatch(/weather +2 +0\.500/);
    expect(htmlReport(result)).toMatch(/<tr><td>weather<\/td><td>2<\/td><td>0\.500<\/td><td>50\.0%<\/td><\/tr>/);
  });
});

describe('the scorers', () => {
  const base = { input: 'q', trajectory: [], metadata: {} };
  it('score text: exact, contains, regex', async () => {
    expect(await exactMatch({ ignoreCase: true }).score({ ...base, output: ' Paris ', expected: 'paris' })).toMatchObject({ score: 1 });
    expect(await exactMatch().score({ ...base, output: 'Paris', expected: 'Lyon' })).toMatchObject({
      score: 0,
      reason: 'expected "Lyon", got "Paris"',
    });
    expect(await contains().score({ ...base, output: 'a red fox', expected: ['red', 'fox', 'dog'] })).toMatchObject({
      score: 2 / 3,
      reason: 'missing "dog"',
    });
    expect(await regex().score({ ...base, output: 'order #123', expected: '#\\d+' })).toMatchObject({ score: 1 });
    expect(() => regex('(')).toThrow(EvalOptionsError);
  });

  it('score structure: JSON Schema, structured equality, numeric closeness', async () => {
    const schema = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
    expect(await jsonSchema(schema).score({ ...base, output: '{"n": 1}', expected: undefined })).toMatchObject({ score: 1 });
    const bad = await jsonSchema(schema).score({ ...base, output: '{"n": "x"}', expected: undefined });
    expect(bad.score).toBe(0);
    expect(bad.reason).toMatch(/n/);
    expect(await jsonSchema(schema).score({ ...base, output: 'no json', expected: undefined })).toMatchObject({
      score: 0,
      reason: /not JSON/,
    });
    expect(await structuredEqual().score({ ...base, output: '```json\n{"b":2,"a":1}\n```', expected: { a: 1, b: 2 } })).toMatchObject({
      score: 1,
    });
    expect(await structuredEqual().score({ ...base, output: '', structured: { a: 1, b: 3 }, expected: { a: 1, b: 2 } })).toMatchObject({
      score: 0.5,
      reason: 'fields that differ: b',
    });
    expect(
      await structuredEqual({ partial: true }).score({ ...base, output: '{"a":{"x":1,"y":2},"c":3}', expected: { a: { x: 1 } } }),
    ).toMatchObject({ score: 1 });
    expect(await numericCloseness().score({ ...base, output: 'about 42', expected: 42 })).toMatchObject({ score: 1 });
    expect(await numericCloseness({ tolerance: 1 }).score({ ...base, output: 'it is 1,050', expected: 1000 })).toMatchObject({
      score: 1 - 49 / 1000,
    });
    expect(await numericCloseness().score({ ...base, output: 'none', expected: 5 })).toMatchObject({
      score: 0,
      reason: 'the answer holds no number',
    });
  });

  it('match trajectories strictly, unordered and as an ordered subset, with input matchers', async () => {
    const step = (name: string, input: unknown) => ({ name, callId: name, input });
    const trajectory = [step('search', { q: 'owls', limit: 5 }), step('read', { id: 1 }), step('answer', {})];
    const at = (mode: 'strict' | 'unordered' | 'subset', expected: unknown[]) =>
      trajectoryMatch({ mode, expected: expected as never }).score({ ...base, output: '', expected: undefined, trajectory });
    expect(await at('strict', ['search', 'read', 'answer'])).toMatchObject({ score: 1 });
    expect(await at('strict', ['read', 'search', 'answer'])).toMatchObject({ score: 0, reason: /call 1 was search/ });
    expect(await at('unordered', ['answer', 'search', 'read'])).toMatchObject({ score: 1 });
    expect(await at('unordered', ['answer', 'search'])).toMatchObject({ score: 0 });
    expect(await at('subset', ['search', 'answer'])).toMatchObject({ score: 1 });
    expect(await at('subset', ['answer', 'search'])).toMatchObject({ score: 0 });
    expect(await at('strict', [{ name: 'search', input: { q: 'owls' } }, 'read', 'answer'])).toMatchObject({ score: 1 });
    expect(await at('subset', [{ name: 'search', input: { q: 'cats' } }])).toMatchObject({ score: 0 });
    expect(await at('subset', [{ name: 'read', input: (i: { id: number }) => i.id === 1 }])).toMatchObject({ score: 1 });
    // A loose matcher does not take the call a strict one needs.
    const twoSearches = [step('search', { q: 'a' }), step('search', { q: 'b' })];
    const loose = await trajectoryMatch({ mode: 'unordered', expected: ['search', { name: 'search', input: { q: 'a' } }] }).score({
      ...base,
      output: '',
      expected: undefined,
      trajectory: twoSearches,
    });
    expect(loose.score).toBe(1);
  });

  it('judge with any model invoker through structured output, its cost counted apart from the agent', async () => {
    const { agent, store, model } = await setup();
    const asked: ModelRequest[] = [];
    const judgeModel: ModelInvoker = Object.assign(
      async (request: ModelRequest) => {
        asked.push(request);
        const answer = JSON.stringify(request.messages).includes('sunny')
          ? { score: 0.9, reason: 'says it is sunny' }
          : { score: 0.2, reason: 'no weather' };
        return {
          turn: { role: 'assistant' as const, blocks: [{ kind: 'text' as const, text: JSON.stringify(answer) }] },
          stopReason: 'end_turn',
          usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 },
        };
      },
      { modelId: MODEL },
    );
    const judge = modelJudge({ name: 'helpful', rubric: 'The answer gives the weather.', model: judgeModel, threshold: 0.7 });
    const result = await evaluate({ agent, store, data: FIVE.slice(0, 1).concat(FIVE[4]), scorers: [judge] });
    expect(asked).toHaveLength(2);
    expect(asked[0].responseFormat).toMatchObject({ type: 'json' });
    expect(JSON.stringify(asked[0].messages)).toContain('The answer gives the weather.');
    expect(result.cases[0].scores[0]).toMatchObject({ name: 'helpful', score: 0.9, passed: true, reason: 'says it is sunny' });
    expect(result.cases[1].scores[0]).toMatchObject({ score: 0.2, passed: false });
    expect(result.cases[0].judgeUsage).toMatchObject({ inputTokens: 1000, outputTokens: 100 });
    expect(result.cases[0].judgeCostUsd).toBeCloseTo((1000 + 500) / 1e6, 12);
    expect(result.summary.judgeCostUsd).toBeCloseTo((2 * 1500) / 1e6, 12);
    // The agent's own figures hold only its calls.
    expect(result.cases[0].usage.inputTokens).toBe(200);
    expect(result.summary.costUsd).toBeCloseTo((3 * 200) / 1e6, 12);
    expect(model.calls).toBe(3);

    const liar = Object.assign(
      async () => ({ turn: { role: 'assistant' as const, blocks: [{ kind: 'text' as const, text: 'great!' }] }, stopReason: 'end_turn' }),
      { modelId: MODEL },
    );
    const bad = await evaluate({ agent, data: [FIVE[4]], scorers: [modelJudge({ name: 'j', rubric: 'r', model: liar })] });
    expect(bad.cases[0].scores[0]).toMatchObject({ score: 0, passed: false, error: expect.stringMatching(/did not answer JSON/) });
  });

  it('take custom scorers, and refuse a verdict out of range', async () => {
    const { agent } = await setup();
    const long = scorer('short', ({ output }) => ({ score: output.length < 20 ? 1 : 0, reason: `${output.length} characters` }));
    const broken = scorer('broken', () => ({ score: 7, reason: 'too much' }));
    const result = await evaluate({ agent, data: [FIVE[4]], scorers: [long, broken] });
    expect(result.cases[0].scores).toEqual([
      { name: 'short', score: 1, reason: '17 characters', passed: true },
      expect.objectContaining({ name: 'broken', score: 0, passed: false, error: expect.stringMatching(/not \{ score: 0\.\.1/) }),
    ]);
  });
});
