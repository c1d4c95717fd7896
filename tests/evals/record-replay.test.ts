import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { contains, evaluate, recordModel, replayModel, ReplayMissError, trajectoryMatch } from '../../src/evals/index.js';
import { agentConfig, definition, MODEL, scratchStore, weather } from './scripted.js';

// The model is the loopback Anthropic server, through the real SDK: it counts every request, so "no
// network" is what it saw, not what the code claims.
let server: AnthropicTestServer;
let scratch: Awaited<ReturnType<typeof scratchStore>>;
beforeAll(async () => {
  scratch = await scratchStore();
  server = await startAnthropicServer();
  server.respond(
    (body: { messages: Array<{ role: string; content: Array<{ type: string; text?: string; content?: unknown }> | string }> }) => {
      const last = body.messages.at(-1)!;
      const blocks = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
      const result = blocks.find((b) => b.type === 'tool_result');
      if (result !== undefined) return reply.text(`It is ${JSON.stringify(result.content)}.`);
      const city = /weather in (\w+)/.exec(blocks.map((b) => b.text ?? '').join(''))?.[1];
      return city === undefined ? reply.text('no city') : reply.tools([{ name: 'weather', input: { city } }]);
    },
  );
});
afterAll(async () => {
  await server.close();
  await scratch.cleanup();
});

const CITIES = ['Paris', 'Oslo', 'Lima', 'Rome', 'Kyiv'];
const cases = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, input: `What is the weather in ${CITIES[i % 5]}${i}?`, expected: 'It is' }));
const scorers = [contains(), trajectoryMatch({ mode: 'strict', expected: ['weather'] })];

describe('record and replay', () => {
  it('replays 1,000 recorded cases with no request reaching the model, scored as they were recorded', async () => {
    const file = join(scratch.dir, 'thousand.jsonl');
    const config = { model: MODEL, system: 'You report the weather.', tools: [weather] };
    const live = createAnthropicInvoker(server.client());
    const recorder = recordModel(live, file);
    const recorded = await evaluate({
      name: 'weather',
      agent: definition(config, { invokeModel: recorder, store: scratch.store }),
      data: cases(1000),
      scorers,
      concurrency: 8,
    });
    expect(recorded.summary.statuses.settled).toBe(1000);
    const sent = server.requests.length;
    expect(sent).toBe(2000);
    expect(recorder.recorded()).toBe(2000);

    const replay = replayModel(file);
    const started = performance.now();
    const replayed = await evaluate({
      name: 'weather',
      agent: definition(config, { invokeModel: replay, store: scratch.store }),
      data: cases(1000),
      scorers,
      concurrency: 8,
    });
    const wallMs = performance.now() - started;
    expect(server.requests.length).toBe(sent);
    expect(replay.hits()).toBe(2000);
    expect(replay.misses()).toBe(0);
    expect(replayed.summary.statuses.settled).toBe(1000);
    expect(replayed.cases.map((c) => c.output)).toEqual(recorded.cases.map((c) => c.output));
    expect(replayed.summary.scorers).toEqual(recorded.summary.scorers);
    // Fresh sessions all the same: a replay is a run of its own.
    expect(replayed.runId).not.toBe(recorded.runId);
    console.log(`replayed 1000 cases (2000 model calls) in ${Math.round(wallMs)} ms, 0 requests`);
  }, 300_000);

  it('turns a changed request into a miss for that case, never a live call', async () => {
    const file = join(scratch.dir, 'changed.jsonl');
    const config = { model: MODEL, system: 'You report the weather.', tools: [weather] };
    await evaluate({
      agent: definition(config, { invokeModel: recordModel(createAnthropicInvoker(server.client()), file) }),
      data: cases(3),
      scorers,
    });
    const sent = server.requests.length;
    const data = cases(3);
    data[1] = { ...data[1], input: 'What is the weather in Berlin1?' };
    const replay = replayModel(file);
    const result = await evaluate({ agent: definition(config, { invokeModel: replay }), data, scorers });
    expect(result.cases.map((c) => c.status)).toEqual(['settled', 'replay_miss', 'settled']);
    expect(result.cases[1].error).toMatchObject({
      kind: 'replay_miss',
      message: expect.stringMatching(/no recorded reply .* record again/),
    });
    // A new system prompt changes every request.
    const renamed = await evaluate({
      agent: definition({ ...config, system: 'Report the weather briefly.' }, { invokeModel: replayModel(file) }),
      data: cases(3),
      scorers,
    });
    expect(renamed.cases.map((c) => c.status)).toEqual(['replay_miss', 'replay_miss', 'replay_miss']);
    expect(server.requests.length).toBe(sent);
    await expect(replay({ model: MODEL, messages: [], tools: [], maxOutputTokens: 10 })).rejects.toSatisfy(ReplayMissError.isInstance);
  });

  it('replays a case with a sub-agent, whose session id reaches the requests through the tool result', async () => {
    const { scriptedModel } = await import('./scripted.js');
    const file = join(scratch.dir, 'nested.jsonl');
    const model = scriptedModel();
    const data = [{ input: 'research owls' }, { input: 'add 1 and 2' }];
    const first = await evaluate({
      agent: definition(agentConfig(), { invokeModel: recordModel(model, file), store: scratch.store }),
      data,
      scorers: [],
    });
    const calls = model.calls;
    const again = await evaluate({
      agent: definition(agentConfig(), { invokeModel: replayModel(file), store: scratch.store }),
      data,
      scorers: [],
    });
    expect(again.cases.map((c) => c.status)).toEqual(['settled', 'settled']);
    expect(again.cases.map((c) => c.output)).toEqual(first.cases.map((c) => c.output));
    expect(model.calls).toBe(calls);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(calls);
  });
});
