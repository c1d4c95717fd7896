// One budget over a tree of agents: a run's `limits` count every model and tool call of its
// sub-agents too, and the run stops with `budget_exceeded` BEFORE the call that could cross a limit.
// Across every provider whose costs the cards know: each invoker through its real SDK against the
// loopback server of its wire format.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createConductor, MemorySessionStore, RunFault, sessionCost } from '../../src/runtime/index.js';
import type { ModelInvoker, ModelRequest, ModelUsage, RunLimits, ToolDefinition } from '../../src/runtime/index.js';
import { agentTool } from '../../src/agents/index.js';
import { BudgetExceededError, LimitsError, UnpricedModelError } from '../../src/entries/errors.js';
import { createAnthropicInvoker } from '../../src/providers/anthropic/index.js';
import { createOpenAIInvoker } from '../../src/providers/openai/index.js';
import { fromAiSdk } from '../../src/providers/ai-sdk/index.js';
import type { InvokerHarness, ScriptedReply, SentRequest } from '../runtime/contract/model-invoker-contract.js';
import { anthropicHarness } from '../support/anthropic-harness.js';
import { openaiHarness } from '../support/openai-harness.js';

const OUTPUT_CAP = 200;
const FETCHES = 3;

const providers: Array<{ name: string; model: string; start: () => Promise<InvokerHarness> }> = [
  { name: 'Anthropic', model: 'claude-haiku-4-5', start: () => anthropicHarness((server) => createAnthropicInvoker(server.client())) },
  { name: 'OpenAI', model: 'gpt-4o-mini', start: () => openaiHarness((server) => createOpenAIInvoker(server.client())) },
  {
    name: 'AI SDK (OpenAI Responses)',
    model: 'gpt-4o-mini',
    start: () =>
      openaiHarness((server) => fromAiSdk(createOpenAI({ baseURL: server.baseURL, apiKey: 'k' }).responses('gpt-4o-mini')), 'gpt-4o-mini'),
  },
  {
    name: 'AI SDK (Anthropic Messages)',
    model: 'claude-haiku-4-5',
    start: () =>
      anthropicHarness(
        (server) => fromAiSdk(createAnthropic({ baseURL: `${server.baseURL}/v1`, apiKey: 'k' }).messages('claude-haiku-4-5')),
        'claude-haiku-4-5',
      ),
  },
];

let harness: InvokerHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

let ids = 0;
/**
 * The lead asks `research`; research fetches three pages, one step each, then answers. Every reply
 * uses its whole output cap, and reports its prompt as a tokenizer would count it: its words, about
 * four characters a token.
 */
function treeReplies(sent: SentRequest): ScriptedReply {
  const prompt = Math.ceil((sent.system.length + sent.transcript.join('\n').length) / 4);
  const usage = { input: prompt, output: Math.min(sent.maxOutputTokens, OUTPUT_CAP) };
  const results = sent.transcript.filter((line) => line.startsWith('result ')).length;
  if (sent.system === 'You lead.') {
    if (results > 0) return { kind: 'reply', text: 'The lead is done.', usage };
    return { kind: 'reply', calls: [{ id: `call_lead_${++ids}`, name: 'research', input: { prompt: 'Read three pages.' } }], usage };
  }
  if (results < FETCHES) return { kind: 'reply', calls: [{ id: `call_fetch_${++ids}`, name: 'fetch', input: { page: results } }], usage };
  return { kind: 'reply', text: 'Research is done.', usage };
}

function treeOf(invoker: ModelInvoker, model: string, store: MemorySessionStore, fetched: number[]) {
  const fetch: ToolDefinition = {
    name: 'fetch',
    description: 'Fetches one page.',
    inputSchema: { type: 'object', properties: { page: { type: 'number' } } },
    execute: (input: { page: number }) => (fetched.push(input.page), `page ${input.page}`),
  };
  const research = agentTool(
    { model, system: 'You research.', tools: [fetch], maxOutputTokens: OUTPUT_CAP },
    { name: 'research', description: 'R.' },
  );
  return createConductor(
    { model, system: 'You lead.', tools: [research], maxOutputTokens: OUTPUT_CAP, sessionId: 'lead' },
    { invokeModel: invoker, store },
  );
}

/** What every session of the tree was billed, priced from the cards. */
async function treeCost(store: MemorySessionStore): Promise<number> {
  let usd = 0;
  for (const id of store.sessionIds()) {
    const graph = await store.loadSession(id);
    usd += sessionCost(graph.allNodes()).cost?.usd ?? 0;
  }
  return usd;
}

describe.each(providers)('a budget over a tree of agents on $name', ({ model, start }) => {
  it('stops before the model call that could cross maxCostUsd, counted over the sub-agent, and picks the tree up with more', async () => {
    // Unlimited, the tree spends this much: the limit below is under it.
    harness = await start();
    harness.respond(treeReplies);
    const unlimitedStore = new MemorySessionStore();
    await treeOf(harness.invoker, model, unlimitedStore, []).submit('Go.');
    const unlimited = await treeCost(unlimitedStore);
    const calls = harness.sent().length;
    await harness.close();

    harness = await start();
    harness.respond(treeReplies);
    const store = new MemorySessionStore();
    const fetched: number[] = [];
    const lead = treeOf(harness.invoker, model, store, fetched);
    const maxCostUsd = unlimited * 0.6;
    const fault = await lead.submit('Go.', { limits: { maxCostUsd } }).then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(RunFault.isInstance(fault)).toBe(true);
    const stop = (fault as RunFault).cause as BudgetExceededError;
    expect((fault as RunFault).kind).toBe('budget_exceeded');
    expect(stop).toMatchObject({ limit: 'maxCostUsd', max: maxCostUsd });
    // Never after the money is spent: what the tree was billed stays within the limit, and the call
    // refused could have crossed it.
    const spent = await treeCost(store);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(maxCostUsd);
    expect(stop.spent).toBeCloseTo(spent, 10);
    expect(stop.spent + stop.needed).toBeGreaterThan(maxCostUsd);
    expect(harness.sent().length).toBeLessThan(calls);
    // It stopped inside the sub-agent, whose call stays open in the lead's session, to be picked up.
    expect(fetched.length).toBeLessThan(FETCHES);
    const opened = await lead.resume('lead');
    expect(opened.status).toBe('interrupted');
    expect(opened.interrupted).toEqual([expect.objectContaining({ name: 'research', rerun: true })]);

    const done = await lead.continue({ limits: { maxCostUsd: unlimited * 2 } });
    expect(done.status).toBe('settled');
    expect(fetched).toEqual([0, 1, 2]);
    // Picked up, not started over: every request of the research agent sent a longer conversation than the one before.
    const research = harness.sent().filter((request) => request.system === 'You research.');
    const lengths = research.map((request) => request.transcript.length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    expect(new Set(lengths).size).toBe(lengths.length);
    await lead.close();
  });
});

/** The `RunFault` a run rejects with; a run that settles fails the test. */
function faultOf(run: PromiseLike<unknown>): Promise<RunFault> {
  return Promise.resolve(run).then(
    () => {
      throw new Error('expected the run to fault');
    },
    (error: RunFault) => error,
  );
}

/** A model at the seam for the limits that need no wire: answers by the plan, with fixed usage. */
function planned(
  plan: (request: ModelRequest, index: number) => 'call' | 'answer',
  usage: ModelUsage,
  seen: ModelRequest[] = [],
): ModelInvoker {
  return async (request) => {
    const index = seen.push(request) - 1;
    if (plan(request, index) === 'answer')
      return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'done' }] }, stopReason: 'end_turn', usage };
    return {
      turn: {
        role: 'assistant',
        blocks: [
          { kind: 'tool_call', id: `t${index}a`, name: 'note', input: {} },
          { kind: 'tool_call', id: `t${index}b`, name: 'note', input: {} },
        ],
      },
      stopReason: 'tool_use',
      usage,
    };
  };
}

describe('limits', () => {
  const usage: ModelUsage = { inputTokens: 100, outputTokens: 20, cacheWriteTokens: 0, cacheReadTokens: 0 };
  const noted: string[] = [];
  const note: ToolDefinition = {
    name: 'note',
    description: 'Notes.',
    inputSchema: { type: 'object' },
    execute: (_input, ctx) => (noted.push(ctx.callId), 'noted'),
  };

  it('maxToolCalls: a batch that would cross it does not start; its calls are answered as not run, durably', async () => {
    noted.length = 0;
    const store = new MemorySessionStore();
    const agent = createConductor({ model: 'm', tools: [note], sessionId: 's' }, { invokeModel: planned(() => 'call', usage), store });
    const fault = await faultOf(agent.submit('Note things.', { limits: { maxToolCalls: 5 } }));
    expect(fault.kind).toBe('budget_exceeded');
    expect((fault.cause as BudgetExceededError).limit).toBe('maxToolCalls');
    // Two batches of two ran; the third would have made six.
    expect(noted).toEqual(['t0a', 't0b', 't1a', 't1b']);
    const last = fault.snapshot.messages.at(-1)!;
    expect(last.blocks).toEqual([
      expect.objectContaining({
        callId: 't2a',
        isError: true,
        content: expect.stringMatching(/^Not run: The run stopped before a call that would cross its maxToolCalls of 5/),
      }),
      expect.objectContaining({ callId: 't2b', isError: true }),
    ]);
    await agent.close();
    const graph = await store.loadSession('s');
    expect(graph.pathTo(graph.leaf!).at(-1)).toEqual(last);
  });

  it('maxTokens: counts each call at its input and whole output cap before it is made', async () => {
    const seen: ModelRequest[] = [];
    const heavy: ModelUsage = { inputTokens: 100, outputTokens: 900, cacheWriteTokens: 0, cacheReadTokens: 0 };
    const agent = createConductor(
      { model: 'm', tools: [note], maxOutputTokens: 1000 },
      { invokeModel: planned((_r, i) => (i < 5 ? 'call' : 'answer'), heavy, seen) },
    );
    const fault = await faultOf(agent.submit('Note.', { limits: { maxTokens: 2500 } }));
    const stop = fault.cause as BudgetExceededError;
    expect(stop.limit).toBe('maxTokens');
    // 1,000 tokens billed per call, and each may take its input and 1,000 of output: a third would not fit.
    expect(seen).toHaveLength(2);
    expect(stop.spent).toBe(2000);
    expect(stop.needed).toBeGreaterThan(1000);
  });

  it('maxDurationMs: no call starts after it', async () => {
    let calls = 0;
    const agent = createConductor(
      { model: 'm', tools: [note] },
      {
        invokeModel: async (request) => {
          calls++;
          // Time passes inside the first call until the limit is behind it. Counted from the call's own
          // start, which comes after the run's clock started however long the set-up before it took on a
          // busy machine (counted from before createConductor, a slow set-up left the limit still ahead).
          const started = performance.now();
          while (performance.now() - started < 5) await new Promise((resolve) => setImmediate(resolve));
          return planned(() => 'call', usage)(request);
        },
      },
    );
    const fault = await faultOf(agent.submit('Note.', { limits: { maxDurationMs: 2 } }));
    expect((fault.cause as BudgetExceededError).limit).toBe('maxDurationMs');
    // On a busy machine the limit can pass before the first call starts; either way none starts after it,
    // and the calls the one reply asked for are answered as errors, never run.
    expect(calls).toBeLessThanOrEqual(1);
    if (calls === 1) {
      expect(fault.snapshot.messages.at(-1)!.blocks.every((b) => b.kind === 'tool_result' && b.isError === true)).toBe(true);
    }
  });

  it('refuses limits that cannot work before the run queues, and maxCostUsd for a model without prices', async () => {
    const agent = createConductor({ model: 'unpriced-model' }, { invokeModel: planned(() => 'answer', usage) });
    for (const limits of [
      { maxCostUsd: -1 },
      { maxToolCalls: 1.5 },
      { maxTokens: Number.NaN },
      { maxSteps: 3 },
    ] as unknown as RunLimits[]) {
      await expect(agent.submit('Hi.', { limits })).rejects.toSatisfy((error: unknown) => LimitsError.isInstance(error));
    }
    const fault = await faultOf(agent.submit('Hi.', { limits: { maxCostUsd: 1 } }));
    expect(fault.kind).toBe('invalid_request');
    expect(UnpricedModelError.isInstance(fault.cause)).toBe(true);
    expect((fault.cause as UnpricedModelError).model).toBe('unpriced-model');
  });

  it("stops a sub-agent at its own limit without stopping the caller: the call's error result says so", async () => {
    const seen: ModelRequest[] = [];
    const invoke: ModelInvoker = async (request) => {
      seen.push(request);
      if (request.system === 'lead') {
        const answered = request.messages.at(-1)!.blocks.some((b) => b.kind === 'tool_result');
        return answered
          ? { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'ok' }] }, stopReason: 'end_turn', usage }
          : {
              turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'r1', name: 'research', input: { prompt: 'go' } }] },
              stopReason: 'tool_use',
              usage,
            };
      }
      return planned(() => 'call', usage)(request);
    };
    const research = agentTool(
      { model: 'm', system: 'research', tools: [note], limits: { maxToolCalls: 2 } },
      { name: 'research', description: 'R.' },
    );
    const lead = createConductor({ model: 'm', system: 'lead', tools: [research] }, { invokeModel: invoke });
    const done = await lead.submit('Go.', { limits: { maxToolCalls: 100 } });
    expect(done.status).toBe('settled');
    const result = done.messages[2].blocks[0];
    expect(result).toMatchObject({ kind: 'tool_result', isError: true });
    expect((result as { content: string }).content).toMatch(/^The research agent stopped \(budget_exceeded\): .*maxToolCalls of 2/);
  });
});
