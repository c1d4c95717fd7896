// A fallback chain across vendors: Claude first, GPT when Claude is out, each through its real SDK and a
// loopback server speaking its wire format. The run records which model answered each step and what it
// cost; only outages hand a call on, and never a reply that already streamed text or an aborted one.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError, ModelCallError, PromptTooLongError, RunAbortedError, RunFault } from '../../../src/entries/errors.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { cardLookup, ModelChoiceError } from '../../../src/runtime/models/index.js';
import { fallbackModels, isOutage } from '../../../src/runtime/routing/index.js';
import { sessionCost } from '../../../src/runtime/usage/index.js';
import type { ModelCard, ModelInvoker, RunEvent } from '../../../src/entries/runtime.js';
import type { ModelReply, ModelRequest } from '../../../src/entries/models.js';
import { anthropic } from '../../../src/providers/anthropic/index.js';
import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../../support/openai-server.js';

let claudeServer: AnthropicTestServer;
let gptServer: OpenAITestServer;
beforeEach(async () => {
  [claudeServer, gptServer] = await Promise.all([startAnthropicServer(), startOpenAIServer()]);
});
afterEach(async () => {
  await Promise.all([claudeServer.close(), gptServer.close()]);
});

/** Claude, then GPT; each client with no retries of its own, so one scripted failure is an outage. */
const chain = (options?: Parameters<typeof fallbackModels>[1], gptCard?: ModelCard) =>
  fallbackModels(
    [
      anthropic('claude-sonnet-5-5', { client: claudeServer.client() }),
      createOpenAIInvoker(gptServer.client({ maxRetries: 0 }), { model: 'gpt-5.4-mini', ...(gptCard && { card: gptCard }) }),
    ],
    options,
  );

/** The fault a run that must fail rejects with. */
async function faultOf(run: Promise<unknown>): Promise<RunFault> {
  const outcome = await run.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!RunFault.isInstance(outcome)) throw new Error(`expected the run to fault, got ${String(outcome)}`);
  return outcome;
}

function record(agent: { subscribe(handler: (e: RunEvent) => void): () => void }): RunEvent[] {
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

describe('when the first model is out', () => {
  it('the next one answers; the run records which model answered each step and prices each by its own card', async () => {
    claudeServer.enqueue(
      reply.httpError(529, { errorType: 'overloaded_error', message: 'Overloaded' }),
      reply.text('Claude is back.', { usage: { input_tokens: 1_000_000, output_tokens: 0 } }),
    );
    gptServer.enqueue(response.text('GPT here.', { usage: { input_tokens: 1_000_000, output_tokens: 0 } }));
    const model = chain();
    const store = new MemorySessionStore();
    const agent = createAgent({ model, sessionId: 's' }, { store });
    const events = record(agent);

    const first = await agent.submit('Hello?');
    const second = await agent.submit('And now?');

    expect([first.text, second.text]).toEqual(['GPT here.', 'Claude is back.']);
    // Each call starts with the first model again: a model that is out now may be back for the next step.
    expect(claudeServer.requests.map((r) => r.body.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5']);
    expect(gptServer.requests.map((r) => r.body.model)).toEqual(['gpt-5.4-mini']);
    expect(events.filter((e) => e.kind === 'model_retry')).toEqual([
      expect.objectContaining({ kind: 'model_retry', attempt: 2, delayMs: 0, status: 529, model: 'gpt-5.4-mini' }),
    ]);
    await agent.close();

    const nodes = [...(await store.loadSession('s')).allNodes()].filter((node) => node.turn.role === 'assistant');
    expect(nodes.map((node) => node.model)).toEqual(['gpt-5.4-mini', 'claude-sonnet-5-5']);
    const cost = sessionCost(await store.loadSession('s').then((graph) => graph.allNodes()), cardLookup(model));
    expect(cost.byModel.map(({ model, cost }) => ({ model, usd: cost?.usd }))).toEqual([
      { model: 'gpt-5.4-mini', usd: 0.75 },
      { model: 'claude-sonnet-5-5', usd: 3 },
    ]);
    expect(cost.cost?.usd).toBeCloseTo(3.75, 12);
  });

  it('asks each model within its own card’s output cap, and prices it by the card it carries', async () => {
    const gptCard: ModelCard = {
      id: 'gpt-5.4-mini',
      contextWindow: 64_000,
      maxOutputTokens: 1_500,
      pricing: { inputPerMTok: 10, outputPerMTok: 10, cacheWritePerMTok: 10, cacheReadPerMTok: 1, pricesAsOf: '2026-11-20' },
    };
    claudeServer.enqueue(reply.httpError(503));
    gptServer.enqueue(response.text('ok', { usage: { input_tokens: 100_000, output_tokens: 0 } }));
    const model = chain(undefined, gptCard);
    const store = new MemorySessionStore();
    const agent = createAgent({ model, sessionId: 's' }, { store });

    await agent.submit('hi');
    await agent.close();

    expect(claudeServer.requests[0].body.max_tokens).toBe(64_000);
    expect(gptServer.requests[0].body.max_output_tokens).toBe(1_500);
    const cost = sessionCost((await store.loadSession('s')).allNodes(), cardLookup(model));
    expect(cost.byModel).toEqual([expect.objectContaining({ model: 'gpt-5.4-mini', cost: { usd: 1, pricesAsOf: '2026-11-20' } })]);
  });

  it('when every model is out, the run faults with the last one’s failure', async () => {
    claudeServer.enqueue(reply.httpError(429));
    gptServer.enqueue(response.httpError(500));
    const agent = createAgent({ model: chain() });
    const events = record(agent);

    const fault = await faultOf(agent.submit('hi'));

    expect(RunFault.isInstance(fault)).toBe(true);
    expect(fault.kind).toBe('model_error');
    expect((fault.cause as ModelCallError).status).toBe(500);
    expect(events.filter((e) => e.kind === 'model_retry')).toHaveLength(1);
  });
});

describe('what is not handed on', () => {
  it('a request the first model refuses (400): the run faults and the next model is never asked', async () => {
    claudeServer.enqueue(reply.httpError(400, { message: 'tools: bad schema' }));
    const fault = await faultOf(createAgent({ model: chain() }).submit('hi'));
    expect(fault.kind).toBe('model_error');
    expect((fault.cause as ModelCallError).status).toBe(400);
    expect(gptServer.requests).toHaveLength(0);
  });

  it('a reply that already streamed text before it broke: no second answer after half of the first', async () => {
    claudeServer.enqueue(
      reply.text('The answer is forty', { chunks: ['The answer ', 'is forty'], interrupt: { afterFrames: 5, with: 'error' } }),
    );
    const agent = createAgent({ model: chain() });
    const events = record(agent);

    const fault = await faultOf(agent.submit('hi'));

    expect(events.some((e) => e.kind === 'text_delta')).toBe(true);
    expect(fault.kind).toBe('model_error');
    expect(gptServer.requests).toHaveLength(0);
  });

  it('an aborted call, even under a rule that hands on every failure', async () => {
    claudeServer.enqueue(reply.text('slow and steady', { chunks: ['slow ', 'and ', 'steady'], frameDelayMs: 200 }));
    const asked: string[] = [];
    const next: ModelInvoker = Object.assign(
      async (request: ModelRequest): Promise<ModelReply> => {
        asked.push(request.model);
        return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'too late' }] }, stopReason: 'end_turn' };
      },
      { modelId: 'in-process' },
    );
    const model = fallbackModels([anthropic('claude-sonnet-5-5', { client: claudeServer.client() }), next], { when: () => true });
    const stop = new AbortController();
    // Aborted once the request reached the server, before any text streamed.
    void claudeServer.waitForRequests(1).then(() => stop.abort());

    // Called directly, so the call is awaited to its very end (an agent stops waiting at the abort).
    const failure = await model({
      model: 'claude-sonnet-5-5',
      messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
      tools: [],
      maxOutputTokens: 100,
      signal: stop.signal,
    }).catch((error: unknown) => error);

    expect(RunAbortedError.isInstance(failure)).toBe(true);
    expect(asked).toEqual([]);
  });

  it('unless `when` says so: a custom rule hands on a 401 too', async () => {
    claudeServer.enqueue(reply.httpError(401));
    gptServer.enqueue(response.text('GPT answers.'));
    const model = chain({ when: (error) => isOutage(error) || (ModelCallError.isInstance(error) && error.status === 401) });
    expect((await createAgent({ model }).submit('hi')).text).toBe('GPT answers.');
  });
});

describe('isOutage', () => {
  it('is an overload, a rate limit, a server error or a lost connection, never a prompt over the window', () => {
    for (const status of [408, 409, 429, 500, 503, 529, undefined]) expect(isOutage(new ModelCallError('x', { status }))).toBe(true);
    for (const status of [400, 401, 403, 404, 413]) expect(isOutage(new ModelCallError('x', { status }))).toBe(false);
    expect(isOutage(new PromptTooLongError('too long', { status: 400 }))).toBe(false);
    expect(isOutage(new Error('boom'))).toBe(false);
  });
});

describe('a chain that cannot work', () => {
  it('is refused when built, and a control one of its models cannot take when the agent is created', () => {
    expect(() => fallbackModels([])).toThrow(ModelChoiceError);
    expect(() => fallbackModels([anthropic('claude-sonnet-5-5', { client: claudeServer.client() }), 'gpt-5' as never])).toThrow(
      /models\[1\] is not a model invoker/,
    );
    expect(() => fallbackModels([chain()], { when: 'always' as never })).toThrow(ModelChoiceError);
    // Claude's thinking budget must stay below the output cap of every Claude in the chain.
    const small = anthropic('claude-haiku-4-5', {
      client: claudeServer.client(),
      card: { id: 'claude-haiku-4-5', contextWindow: 200_000, maxOutputTokens: 2_000 },
    });
    const model = fallbackModels([anthropic('claude-sonnet-5-5', { client: claudeServer.client() }), small]);
    expect(() => createAgent({ model, thinking: { budgetTokens: 4_000 } })).toThrow(AgentConfigError);
    expect(() => createAgent({ model, thinking: { budgetTokens: 4_000 } })).toThrow(
      /thinking budget \(4000\) must be below the output cap/,
    );
    expect(() => createAgent({ model, thinking: { budgetTokens: 1_500 } })).not.toThrow();
  });
});
