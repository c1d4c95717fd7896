import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, hashNode, SessionStore } from '../../../src/entries/runtime.js';
import { InvalidUsageError, sumUsage } from '../../../src/runtime/usage/index.js';
import { SessionWriter } from '../../../src/runtime/store/index.js';
import type { RunEvent, SessionNode, ToolDefinition } from '../../../src/entries/runtime.js';
import type { ModelUsage } from '../../../src/entries/models.js';
import type { SessionRecord } from '../../../src/entries/store.js';
import { reply, startAnthropicServer, type AnthropicTestServer, type ScriptUsage } from '../../../src/testing/index.js';
import { breakpoints } from '../../support/cache-markers.js';

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-usage-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const MODEL = 'claude-sonnet-5-5';
const probe: ToolDefinition = { name: 'probe', description: 'Probes.', inputSchema: { type: 'object' }, execute: () => 'probed' };
const asModelUsage = (u: Required<ScriptUsage>): ModelUsage => ({
  inputTokens: u.input_tokens,
  outputTokens: u.output_tokens,
  cacheWriteTokens: u.cache_creation_input_tokens,
  cacheReadTokens: u.cache_read_input_tokens,
});
const usageEvents = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { kind: 'usage' }> => e.kind === 'usage');

async function storedNodes(sessionId: string): Promise<SessionNode[]> {
  const lines = (await readFile(join(dir, `${sessionId}.jsonl`), 'utf8')).trim().split('\n');
  return lines.map((line) => JSON.parse(line) as SessionRecord).flatMap((r) => (r.type === 'node' ? [r.node] : []));
}

// message_start reports early counts; message_delta the final cumulative ones, which must replace them.
const finals = [
  { input_tokens: 1000, output_tokens: 40, cache_creation_input_tokens: 800, cache_read_input_tokens: 0 },
  { input_tokens: 35, output_tokens: 25, cache_creation_input_tokens: 60, cache_read_input_tokens: 1800 },
  { input_tokens: 22, output_tokens: 12, cache_creation_input_tokens: 40, cache_read_input_tokens: 1900 },
];
const starts = [
  { input_tokens: 900, output_tokens: 1, cache_creation_input_tokens: 100, cache_read_input_tokens: 50 },
  { input_tokens: 30, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 1700 },
  { input_tokens: 20, output_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 1900 },
];
const TOTAL: ModelUsage = { inputTokens: 1057, outputTokens: 77, cacheWriteTokens: 900, cacheReadTokens: 3700 };

function scriptToolLoop(): void {
  server.enqueue(
    reply.tools([{ name: 'probe', id: 'toolu_a' }], { startUsage: starts[0], usage: finals[0] }),
    reply.tools([{ name: 'probe', id: 'toolu_b' }], { startUsage: starts[1], usage: finals[1] }),
    reply.text('Probed twice.', { startUsage: starts[2], usage: finals[2] }),
  );
}

describe('usage over a multi-step tool loop', () => {
  it('takes each call’s final counts (message_delta overwrites message_start), publishes them and sums them into the snapshot', async () => {
    scriptToolLoop();
    const agent = createAgent({ model: MODEL, tools: [probe] }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    const snapshot = await agent.submit('Probe twice.');

    expect(usageEvents(events).map((e) => e.usage)).toEqual(finals.map(asModelUsage));
    expect(usageEvents(events).map((e) => e.total)).toEqual([
      asModelUsage(finals[0]),
      sumUsage([asModelUsage(finals[0]), asModelUsage(finals[1])]),
      TOTAL,
    ]);
    expect(snapshot.usage).toEqual(TOTAL);
    expect(await agent.sessionUsage()).toEqual(TOTAL);
  });

  it('stores each call’s usage and model on the node of the assistant turn it produced, outside the node id', async () => {
    scriptToolLoop();
    const agent = createAgent({ model: MODEL, tools: [probe], sessionId: 's1' }, { client: server.client(), store: new SessionStore(dir) });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));
    await agent.submit('Probe twice.');
    await agent.close();

    const nodes = await storedNodes('s1');
    // Each usage event names the model its node names: what prices a run from its events (evaluations do).
    expect(usageEvents(events).map((e) => [e.usage, e.model])).toEqual(
      nodes.filter((n) => n.turn.role === 'assistant').map((n) => [n.usage, n.model]),
    );
    expect(nodes.map((n) => n.turn.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(nodes.filter((n) => n.turn.role === 'assistant').map((n) => n.usage)).toEqual(finals.map(asModelUsage));
    expect(nodes.filter((n) => n.turn.role === 'assistant').every((n) => n.model === MODEL)).toBe(true);
    expect(nodes.filter((n) => n.turn.role === 'user').every((n) => n.usage === undefined && n.model === undefined)).toBe(true);
    for (const node of nodes) expect(hashNode(node)).toBe(node.id);
  });

  it('a fresh agent over the same store reports the session total, and adds its own runs to it', async () => {
    scriptToolLoop();
    const first = createAgent({ model: MODEL, tools: [probe], sessionId: 's2' }, { client: server.client(), store: new SessionStore(dir) });
    await first.submit('Probe twice.');
    await first.close();

    const later = { input_tokens: 5, output_tokens: 7, cache_creation_input_tokens: 11, cache_read_input_tokens: 1900 };
    server.enqueue(reply.text('Done.', { startUsage: { input_tokens: 1, output_tokens: 1 }, usage: later }));
    const fresh = createAgent({ model: MODEL, tools: [probe], sessionId: 's2' }, { client: server.client(), store: new SessionStore(dir) });
    expect(await fresh.sessionUsage()).toEqual(TOTAL);

    const snapshot = await fresh.submit('Anything else?');

    expect(snapshot.usage).toEqual(asModelUsage(later));
    expect(await fresh.sessionUsage()).toEqual(sumUsage([TOTAL, asModelUsage(later)]));
    await fresh.close();
  });

  it('without a store the agent still totals its session across runs', async () => {
    scriptToolLoop();
    server.enqueue(reply.text('Again.', { usage: finals[2] }));
    const agent = createAgent({ model: MODEL, tools: [probe] }, { client: server.client() });

    await agent.submit('Probe twice.');
    await agent.submit('Once more.');

    expect(await agent.sessionUsage()).toEqual(sumUsage([TOTAL, asModelUsage(finals[2])]));
  });
});

describe('usage of the summarizer', () => {
  it('is published, counted in the run, stored on the summary node, and the session total equals everything the API reported', async () => {
    const reported: ModelUsage[] = [];
    server.respond((body) => {
      const summarizing = body.tools === undefined;
      const usage = {
        input_tokens: Math.ceil(JSON.stringify(body).length / 4),
        output_tokens: summarizing ? 30 : 300,
        cache_creation_input_tokens: summarizing ? 0 : 100,
        cache_read_input_tokens: summarizing ? 0 : 50,
      };
      reported.push(asModelUsage(usage));
      return summarizing
        ? reply.text('The user and the assistant traded long greetings.', { usage })
        : reply.text(long('reply'), { usage });
    });
    const config = {
      model: MODEL,
      tools: [probe],
      contextWindow: 4_000,
      maxOutputTokens: 400,
      compaction: { keepRecent: 2 },
      sessionId: 'c1',
    };
    const agent = createAgent(config, { client: server.client(), store: new SessionStore(dir) });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    for (let i = 0; i < 5 && !events.some((e) => e.kind === 'compacted'); i++) await agent.submit(long(`question ${i}`));
    await agent.close();

    const summaryRequest = server.requests.findIndex((r) => r.body.tools === undefined);
    expect(summaryRequest).toBeGreaterThan(0);
    expect(breakpoints(server.requests[summaryRequest].body)).toEqual([]);
    expect(usageEvents(events).map((e) => e.usage)).toContainEqual(reported[summaryRequest]);
    const summary = (await storedNodes('c1')).find((n) => n.condenses !== undefined);
    expect(summary).toMatchObject({ usage: reported[summaryRequest], model: MODEL });

    const fresh = createAgent(config, { client: server.client(), store: new SessionStore(dir) });
    expect(await fresh.sessionUsage()).toEqual(sumUsage(reported));
    await fresh.close();
  });
});

describe('usage in the session store', () => {
  it('usageTotal sums every node, forks included, and survives a reload', async () => {
    const store = new SessionStore(dir);
    const writer = await SessionWriter.open(store, 'forked');
    const graph = writer.graph;
    const say = (role: 'user' | 'assistant', text: string) => ({ role, blocks: [{ kind: 'text' as const, text }] });
    const u = (n: number): ModelUsage => ({ inputTokens: n, outputTokens: n, cacheWriteTokens: n, cacheReadTokens: n });
    const ask = writer.append(say('user', 'hi'), 1);
    writer.append(say('assistant', 'first answer'), 2, { usage: u(1), model: MODEL });
    graph.branchFrom(ask.id);
    writer.append(say('assistant', 'retried answer'), 3, { usage: { ...u(2), cacheWrite1hTokens: 2 }, model: MODEL });
    await writer.persist();
    await writer.close();

    const expected = { ...u(3), cacheWrite1hTokens: 2 };
    expect(graph.usageTotal()).toEqual(expected);
    expect((await store.loadSession('forked')).usageTotal()).toEqual(expected);
  });

  it('refuses bad usage on append, and reports a stored node with malformed usage instead of loading it', async () => {
    const store = new SessionStore(dir);
    const writer = await SessionWriter.open(store, 'bad');
    const turn = { role: 'assistant' as const, blocks: [{ kind: 'text' as const, text: 'x' }] };
    expect(() => writer.append(turn, 1, { usage: { inputTokens: -1, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 } })).toThrow(
      InvalidUsageError,
    );
    expect(writer.graph.size).toBe(0);
    expect(writer.hasPending).toBe(false);
    await writer.close();

    const node = { parent: null, turn, at: 1 };
    const record = {
      type: 'node',
      node: { ...node, id: hashNode(node), usage: { inputTokens: '12', outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 } },
    };
    await writeFile(join(dir, 'bad.jsonl'), `${JSON.stringify(record)}\n`);
    const { graph: loaded, report } = await store.loadSessionWithReport('bad');
    expect(loaded.size).toBe(0);
    expect(report.skipped).toEqual([
      expect.objectContaining({ line: 1, reason: expect.stringContaining('"inputTokens" must be a whole number') }),
    ]);
  });
});

function long(label: string): string {
  return `${label} ${'lorem ipsum dolor sit amet '.repeat(70)}`;
}
