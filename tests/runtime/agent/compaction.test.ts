import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import type { RunEvent, Turn } from '../../../src/entries/runtime.js';
import type { ModelRequest } from '../../../src/entries/models.js';
import { record, say, scriptedModel, tempDir, usage } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

const long = (label: string) => `${label} ${'lorem ipsum dolor sit amet '.repeat(70)}`;
const tool = { name: 'noop', description: 'Does nothing.', inputSchema: { type: 'object' }, execute: () => 'ok' };
// The summarizer's request is the only one sent without the agent's tools.
const isSummaryRequest = (request: ModelRequest) => request.tools.length === 0;
const firstText = (turn: Turn) => (turn.blocks[0].kind === 'text' ? turn.blocks[0].text : '');

/** Answers the conversation with long replies and the summarizer with a short summary. */
function talkativeModel(options: { overflowOnce?: boolean; overflowAlways?: boolean } = {}) {
  let overflowed = false;
  const answer = (request: ModelRequest) => {
    if (isSummaryRequest(request)) return say('The user and the assistant exchanged long greetings.', usage(900, 30));
    if (options.overflowAlways || (options.overflowOnce && !overflowed && request.messages.length >= 7)) {
      overflowed = true;
      throw Object.assign(new Error('prompt is too long: 5200 tokens > 4000 maximum'), { status: 400 });
    }
    // Report a prompt size like the API would, so the conductor's calibration sees the real growth.
    return say(long('reply'), usage(Math.ceil(JSON.stringify(request.messages).length / 4), 500));
  };
  return scriptedModel(...Array.from({ length: 40 }, () => answer));
}

const config = { model: 'claude-test', tools: [tool], contextWindow: 4_000, maxOutputTokens: 400, compaction: { keepRecent: 2 } };

describe('compaction in the conductor (AgentConfig.compaction)', () => {
  it('compacts before the call that would not fit, publishes compacted, counts the summarizer, and resumes compacted', async () => {
    const model = talkativeModel();
    const agent = createAgent({ ...config, sessionId: 'compacted' }, { invokeModel: model.invoke, store: new SessionStore(dir.path) });
    const events = record(agent);

    let snapshot;
    for (let i = 0; i < 4 && !events.some((e) => e.kind === 'compacted'); i++) snapshot = await agent.submit(long(`question ${i}`));

    const compacted = events.find((e): e is Extract<RunEvent, { kind: 'compacted' }> => e.kind === 'compacted');
    expect(compacted).toBeDefined();
    expect(compacted!.removed).toBeGreaterThan(0);
    expect(compacted!.tokensAfter).toBeLessThan(compacted!.tokensBefore);
    const summaryCall = model.requests.findIndex(isSummaryRequest);
    const next = model.requests[summaryCall + 1];
    expect(firstText(next.messages[0]).startsWith(COMPACTION_PREFIX)).toBe(true);
    expect(firstText(next.messages[0])).toContain('exchanged long greetings');
    expect(snapshot!.messages).toEqual(next.messages.concat(snapshot!.messages.slice(-1)));
    // The run's totals include the summarizer's call: one reply of 500 output tokens plus a summary of 30.
    expect(snapshot!.usage.outputTokens).toBe(500 + 30);
    await agent.close();

    const resumed = await createAgent(config, { invokeModel: model.invoke, store: new SessionStore(dir.path) }).resume('compacted');
    expect(resumed.messages).toEqual(snapshot!.messages);
  });

  it('compacts once more and retries when the API still says the prompt is too long', async () => {
    const model = talkativeModel({ overflowOnce: true });
    const agent = createAgent(
      { ...config, compaction: { keepRecent: 2, triggerRatio: 1 }, contextWindow: 100_000 },
      { invokeModel: model.invoke },
    );
    const events = record(agent);

    for (let i = 0; i < 3; i++) await agent.submit(long(`question ${i}`));
    const last = await agent.submit(long('question 3'));

    expect(last.status).toBe('settled');
    expect(events.filter((e) => e.kind === 'compacted')).toHaveLength(1);
    expect(firstText(last.messages[0]).startsWith(COMPACTION_PREFIX)).toBe(true);
  });

  it('faults with context_overflow when compacting cannot make the prompt fit', async () => {
    const model = talkativeModel({ overflowAlways: true });
    const agent = createAgent({ ...config, contextWindow: 100_000 }, { invokeModel: model.invoke });

    await expect(agent.submit('hi')).rejects.toMatchObject({ kind: 'context_overflow' });
  });

  it('asks prepareStep after its own compaction, with the compacted messages, and allows one compaction per step', async () => {
    const model = talkativeModel();
    const seen: string[] = [];
    let compactAgain = false;
    const agent = createAgent(
      {
        ...config,
        prepareStep: ({ messages }) => {
          seen.push(firstText(messages[0]).slice(0, COMPACTION_PREFIX.length));
          if (compactAgain && firstText(messages[0]).startsWith(COMPACTION_PREFIX)) {
            return { compaction: { summary: { role: 'user', blocks: [{ kind: 'text', text: 'mine' }] }, keptFrom: 1 } };
          }
          return undefined;
        },
      },
      { invokeModel: model.invoke, store: new SessionStore(dir.path) },
    );
    const events = record(agent);

    compactAgain = true;
    let failure: unknown;
    for (let i = 0; i < 4 && failure === undefined; i++)
      failure = await agent.submit(long(`question ${i}`)).then(
        () => undefined,
        (e: unknown) => e,
      );

    // The agent compacted first; the hook saw the summary at the head and tried to compact the same step again.
    expect(seen.at(-1)).toBe(COMPACTION_PREFIX);
    expect(failure).toMatchObject({ kind: 'invalid_request', cause: { name: 'StepHookError' } });
    // The step was refused whole: neither compaction was applied, nothing was sent, the session kept its turns.
    expect(events.filter((e) => e.kind === 'compacted')).toHaveLength(0);
    const calls = model.requests.filter((r) => !isSummaryRequest(r));
    expect(calls.every((r) => !firstText(r.messages[0]).startsWith(COMPACTION_PREFIX))).toBe(true);
    const session = await new SessionStore(dir.path).loadSession(agent.sessionId);
    expect(session.pathTo(session.leaf!).some((turn) => firstText(turn).startsWith(COMPACTION_PREFIX))).toBe(false);
    await agent.close();
  });
});
