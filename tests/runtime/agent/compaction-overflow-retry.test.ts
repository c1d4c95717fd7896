// When the API says the prompt is too long although the estimate said it fit (the 400, or a reply that
// stopped with `model_context_window_exceeded`), the conductor compacts once and retries once; a
// second overflow, or nothing to compact, faults `context_overflow`. A cut-off reply is never kept.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { ContextWindowExceededError } from '../../../src/entries/errors.js';
import { runAgent } from '../../../src/providers/anthropic/index.js';
import type { AgentPart } from '../../../src/parts/index.js';
import type { CompactionPolicy } from '../../../src/entries/runtime.js';
import type { RunFault } from '../../../src/entries/errors.js';
import { serverAndDirPerTest, type TempDir } from '../../support/server-and-dir.js';
import { reply, type AnthropicTestServer, type Script } from '../../../src/testing/index.js';
import {
  COMPACTION_PREFIX,
  compactedEvents,
  contentOf,
  fakeModel,
  firstText,
  isSummarizerRequest,
  record,
  storedSession,
  tempDir,
} from './compaction-helpers.js';

const SUMMARY = 'Goal: plan the trip. Decisions: leave on Friday. Identifiers: booking REF-4471.';
const PARTIAL = 'Here is the itinerary: day one, the';
const tooLong = reply.httpError(400, { message: 'prompt is too long: 212345 tokens > 200000 maximum' });
const cutOff = reply.text(PARTIAL, { stopReason: 'model_context_window_exceeded', usage: { input_tokens: 199_600, output_tokens: 400 } });

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

/**
 * Two ordinary exchanges, then the third prompt's calls answered by `overflow` in turn (the estimate
 * sees a small conversation in a large window, so only the API can say it is too long).
 */
function overflowingModel(overflow: Script[]) {
  fakeModel(server, {
    agent: (_body, n) =>
      n < 2
        ? reply.text(`Answer ${n}: ${'we talked about the trip at length. '.repeat(30)}`)
        : (overflow[n - 2] ?? reply.text('Here is the whole itinerary.')),
    summarize: () => reply.text(SUMMARY),
  });
}

function makeAgent(compaction: CompactionPolicy | undefined = { keepRecent: 2 }) {
  // History recall off: these tests pin the summary turn exactly (recall adds a note; tests/runtime/history cover it).
  return createAgent(
    { model: 'claude-test', sessionId: 'trip', maxOutputTokens: 500, compaction, history: false },
    { client: server.client(), store: new SessionStore(dir.path) },
  );
}

async function twoExchanges(agent: ReturnType<typeof makeAgent>) {
  await agent.submit('Plan a trip to Lisbon for me.');
  await agent.submit('We leave on Friday; the booking is REF-4471.');
}

const sessionFile = () => readFile(join(dir.path, 'trip.jsonl'), 'utf8');

describe.each([
  { form: 'the 400 "prompt is too long"', overflow: tooLong },
  { form: 'stop reason model_context_window_exceeded', overflow: cutOff },
])('the API says the prompt is too long: $form', ({ overflow }) => {
  it('compacts once, retries the call once with the compacted context, and settles', async () => {
    overflowingModel([overflow]);
    const agent = makeAgent();
    const events = record(agent);
    await twoExchanges(agent);

    const snapshot = await agent.submit('Now write out the itinerary.');

    expect(snapshot.status).toBe('settled');
    expect(snapshot.text).toBe('Here is the whole itinerary.');
    // ask, ask, the overflowing call, the summarizer, the retry: nothing more.
    expect(server.requests).toHaveLength(5);
    const [refused, summarizer, retried] = server.requests.slice(2).map((r) => r.body);
    expect(isSummarizerRequest(server.requests[3])).toBe(true);
    expect(firstText(summarizer.messages[0])).toContain('Plan a trip to Lisbon for me.');
    expect(firstText(retried.messages[0])).toBe(`${COMPACTION_PREFIX}\n${SUMMARY}`);
    // keepRecent 2: the summary, then the refused request's last two turns as they were.
    expect(retried.messages.slice(1).map(firstText)).toEqual(refused.messages.slice(-2).map(firstText));
    expect(compactedEvents(events)).toHaveLength(1);
    expect(JSON.stringify(snapshot.messages)).not.toContain(PARTIAL);
    expect(snapshot.messages.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    await agent.close();

    const { graph, leaf, path, summaries } = await storedSession(dir.path, 'trip');
    expect(summaries).toHaveLength(1);
    expect(graph.resume(leaf)).toEqual(snapshot.messages);
    expect(contentOf(path)).toEqual([
      'Plan a trip to Lisbon for me.',
      expect.stringMatching(/^Answer 0/),
      'We leave on Friday; the booking is REF-4471.',
      expect.stringMatching(/^Answer 1/),
      'Now write out the itinerary.',
      `${COMPACTION_PREFIX}\n${SUMMARY}`,
      'Here is the whole itinerary.',
    ]);
    expect(await sessionFile()).not.toContain(PARTIAL);
  });

  it('faults context_overflow when the retried call overflows too, and keeps the conversation', async () => {
    overflowingModel([overflow, overflow]);
    const agent = makeAgent();
    const events = record(agent);
    await twoExchanges(agent);

    const fault = (await agent.submit('Now write out the itinerary.').catch((error: unknown) => error)) as RunFault;

    expect(fault).toMatchObject({ name: 'RunFault', kind: 'context_overflow' });
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'context_overflow' } });
    // One compaction and one retry, not a loop.
    expect(server.requests).toHaveLength(5);
    expect(server.requests.filter(isSummarizerRequest)).toHaveLength(1);
    expect(JSON.stringify(fault.snapshot.messages)).not.toContain(PARTIAL);
    expect(fault.snapshot.messages.at(-1)!.blocks).toEqual([{ kind: 'text', text: 'Now write out the itinerary.' }]);
    await agent.close();
    const { path } = await storedSession(dir.path, 'trip');
    expect(contentOf(path).at(-1)).toBe(`${COMPACTION_PREFIX}\n${SUMMARY}`);
    expect(contentOf(path).slice(0, 5)).toEqual([
      'Plan a trip to Lisbon for me.',
      expect.stringMatching(/^Answer 0/),
      'We leave on Friday; the booking is REF-4471.',
      expect.stringMatching(/^Answer 1/),
      'Now write out the itinerary.',
    ]);
    expect(await sessionFile()).not.toContain(PARTIAL);
  });

  it('faults context_overflow without a summarizer call when there is nothing to compact', async () => {
    fakeModel(server, { agent: () => overflow });
    const agent = makeAgent();

    const fault = (await agent.submit('Write out the itinerary.').catch((error: unknown) => error)) as RunFault;

    expect(fault).toMatchObject({ name: 'RunFault', kind: 'context_overflow' });
    expect(server.requests).toHaveLength(1);
    expect(fault.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'Write out the itinerary.' }] }]);
    await agent.close();
  });
});

it('bills the reply a full window cut off: it counts in the run and is stored with the summary it caused', async () => {
  overflowingModel([cutOff]);
  const agent = makeAgent();
  await twoExchanges(agent);
  const before = await agent.sessionUsage();

  const snapshot = await agent.submit('Now write out the itinerary.');

  // The cut-off call (199,600 in, 400 out), the summarizer and the retry all count in the run.
  expect(snapshot.usage.inputTokens).toBeGreaterThanOrEqual(199_600);
  expect(snapshot.usage.outputTokens).toBeGreaterThanOrEqual(400);
  const after = await agent.sessionUsage();
  expect(after.inputTokens - before.inputTokens).toBe(snapshot.usage.inputTokens);
  expect(after.outputTokens - before.outputTokens).toBe(snapshot.usage.outputTokens);
  await agent.close();
  const { summaries } = await storedSession(dir.path, 'trip');
  expect(summaries[0].usage!.inputTokens).toBeGreaterThanOrEqual(199_600);
});

describe('without compaction', () => {
  it.each([
    { form: 'the 400', overflow: tooLong },
    { form: 'the stop reason', overflow: cutOff },
  ])('$form faults context_overflow at once and keeps no partial reply', async ({ overflow }) => {
    fakeModel(server, { agent: () => overflow });
    const agent = makeAgent(undefined);

    const fault = (await agent.submit('Write out the itinerary.').catch((error: unknown) => error)) as RunFault;

    expect(fault).toMatchObject({ name: 'RunFault', kind: 'context_overflow' });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(fault.snapshot.messages)).not.toContain(PARTIAL);
    await agent.close();
  });

  it('runAgent ends with ContextWindowExceededError, the partial reply attached', async () => {
    fakeModel(server, { agent: () => cutOff });
    const parts: AgentPart[] = [];

    const run = async () => {
      for await (const part of runAgent({ client: server.client(), model: 'claude-test', prompt: 'Write out the itinerary.' }))
        parts.push(part);
    };
    const error = await run().catch((e: unknown) => e);

    expect(ContextWindowExceededError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      kind: 'context_overflow',
      promptTokens: 199_600,
      reply: { stopReason: 'model_context_window_exceeded' },
    });
    expect(server.requests).toHaveLength(1);
    // The text had streamed before the stop reason arrived; only the turn is refused.
    expect(parts.map((part) => (part.type === 'text' ? part.text : '')).join('')).toBe(PARTIAL);
  });
});
