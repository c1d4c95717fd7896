// History recall: what condensation took out of the context stays reachable, verbatim, by words and by id.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  CONDENSED_PREFIX,
  createAgent,
  HISTORY_NOTE,
  HistoryIndex,
  MemorySessionStore,
  SessionGraph,
  SessionStore,
} from '../../../src/entries/runtime.js';
import type { ModelInvoker, ModelReply, ModelRequest, RunEvent, Turn } from '../../../src/entries/runtime.js';

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const answer = (text: string): ModelReply => ({ turn: say('assistant', text), stopReason: 'end_turn' });
const call = (name: string, input: unknown, id: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id, name, input }] },
  stopReason: 'tool_use',
});
const toolNames = (request: ModelRequest) => request.tools.map((t) => t.name);
const resultOf = (request: ModelRequest, callId: string) =>
  request.messages.flatMap((t) => t.blocks).find((b) => b.kind === 'tool_result' && b.callId === callId) as
    { content: string; isError?: boolean } | undefined;

/** A model at the seam: summaries for the summarizer, the script for the rest; every request recorded. */
function model(script: Array<ModelReply | ((request: ModelRequest) => ModelReply)>) {
  const requests: ModelRequest[] = [];
  const invoke: ModelInvoker = async (request) => {
    if (request.cacheable === false) return answer('Summary: the user set up the project.');
    requests.push(request);
    const next = script.shift();
    if (next === undefined) throw new Error(`no scripted reply for request ${requests.length}`);
    return typeof next === 'function' ? next(request) : next;
  };
  return { invoke, requests };
}

const facts = [
  'The config lives in src/runtime/store/graph.ts and the bench in bench/store.bench.ts.',
  'Run npm run bench store --filter=resume before the release.',
  'Invoice INV-20417 was paid on 2026-03-14 for 1,842.50 EUR.',
  'The staging host is db-7.internal:5432, replica lag 312 ms.',
];

describe('history recall through the conductor', () => {
  it('gives the model history tools only once a condensation happened, and finds the dropped turns verbatim by words and by id', async () => {
    const store = new MemorySessionStore();
    const replies = model([
      ...facts.map((_, i) => answer(`Noted ${i}.`)),
      call('history_search', { query: 'INV-20417' }, 'h1'),
      (request) => {
        const found = JSON.parse(resultOf(request, 'h1')!.content) as { found: Array<{ id: string; excerpt: string }> };
        return call('history_read', { id: found.found[0].id }, 'h2');
      },
      answer('It was paid on 2026-03-14.'),
    ]);
    const agent = createAgent({ model: 'm', sessionId: 's', compaction: { keepRecent: 2 } }, { store, invokeModel: replies.invoke });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));
    for (const fact of facts) await agent.submit(fact);
    expect(replies.requests.every((r) => !toolNames(r).includes('history_search'))).toBe(true);

    const condensed = await agent.condense();
    const graph = await store.loadSession('s');
    const path = graph.nodesTo(graph.leaf!);
    expect(condensed.compacted?.dropped).toEqual(path.slice(0, 6).map((n) => n.id));
    expect(condensed.snapshot.messages[0].blocks).toEqual([
      { kind: 'text', text: `${CONDENSED_PREFIX}\nSummary: the user set up the project.` },
      { kind: 'text', text: HISTORY_NOTE },
    ]);

    const final = await agent.submit('When was INV-20417 paid?');
    const [search, read, last] = replies.requests.slice(-3);
    expect(toolNames(search)).toEqual(['history_search', 'history_read']);
    const found = JSON.parse(resultOf(read, 'h1')!.content);
    expect(found.found[0]).toMatchObject({ id: path[4].id, role: 'user', excerpt: facts[2] });
    const page = JSON.parse(resultOf(last, 'h2')!.content);
    expect(page).toEqual({ id: path[4].id, role: 'user', at: new Date(path[4].at).toISOString(), text: facts[2] });
    expect(final.text).toBe('It was paid on 2026-03-14.');
    await agent.close();
  });

  it('answers a history call before any condensation as an unknown tool, and an unknown id with an error the model can act on', async () => {
    const replies = model([
      call('history_search', { query: 'anything' }, 'early'),
      answer('ok'),
      answer('one'),
      call('history_read', { id: 'not-a-node' }, 'bad'),
      answer('ok'),
    ]);
    const agent = createAgent(
      { model: 'm', compaction: { keepRecent: 2 } },
      { store: new MemorySessionStore(), invokeModel: replies.invoke },
    );
    // Long enough for the summary to make the context smaller (else nothing is condensed).
    await agent.submit(`first ${'words '.repeat(100)}`);
    expect(resultOf(replies.requests[1], 'early')).toMatchObject({ content: 'Unknown tool "history.search".', isError: true });
    await agent.submit('second');
    await agent.condense();
    await agent.submit('third');
    expect(resultOf(replies.requests.at(-1)!, 'bad')).toMatchObject({
      isError: true,
      content: expect.stringContaining('No condensed turn has the id "not-a-node"'),
    });
    await agent.close();
  });

  it('is off with history: false and without a store: no tools, no note', async () => {
    for (const [config, deps] of [
      [{ history: false as const }, { store: new MemorySessionStore() }],
      [{}, {}],
    ] as const) {
      const replies = model([answer('a'), answer('b'), answer('c')]);
      const agent = createAgent({ model: 'm', compaction: { keepRecent: 2 }, ...config }, { ...deps, invokeModel: replies.invoke });
      await agent.submit('one');
      await agent.submit('two');
      const condensed = await agent.condense();
      expect(condensed.snapshot.messages[0].blocks).toHaveLength(1);
      await agent.submit('three');
      expect(toolNames(replies.requests.at(-1)!)).toEqual([]);
    }
    expect(() => createAgent({ model: 'm', history: { k: 0 } }, { invokeModel: model([]).invoke })).toThrow(AgentConfigError);
  });

  it('searches a session resumed in a new agent over the same files, loading the index only when asked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'indusagi-history-'));
    try {
      const first = model(facts.map((_, i) => answer(`Noted ${i}.`)));
      const writer = createAgent(
        { model: 'm', sessionId: 's', compaction: { keepRecent: 2 } },
        { store: new SessionStore(dir), invokeModel: first.invoke },
      );
      for (const fact of facts) await writer.submit(fact);
      await writer.condense();
      await writer.close();

      const second = model([call('history_search', { query: 'npm run bench store' }, 'q'), answer('With --filter=resume.')]);
      const reader = createAgent(
        { model: 'm', compaction: { keepRecent: 2 } },
        { store: new SessionStore(dir), invokeModel: second.invoke },
      );
      await reader.resume('s');
      await reader.submit('How do we run the store bench?');
      const found = JSON.parse(resultOf(second.requests[1], 'q')!.content);
      expect(found.found[0].excerpt).toBe(facts[1]);
      await reader.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('HistoryIndex', () => {
  const graphOf = (texts: string[]) => {
    const graph = new SessionGraph('h');
    texts.forEach((text, i) => graph.append(say(i % 2 === 0 ? 'user' : 'assistant', text), i));
    return graph;
  };

  it('builds itself from the session on the first search only, then keeps up with what later condensations drop', async () => {
    const graph = graphOf(['alpha beta', 'gamma delta']);
    let loads = 0;
    const index = new HistoryIndex(() => {
      loads++;
      return [...graph.allNodes()];
    });
    index.add([graph.append(say('user', 'ignored before the first search'), 9)]);
    expect(loads).toBe(0);
    expect((await index.search('gamma', 5, 100)).map((h) => h.excerpt)).toEqual(['gamma delta']);
    expect((await index.search('ignored', 5, 100)).map((h) => h.excerpt)).toEqual(['ignored before the first search']);
    index.add([graph.append(say('assistant', 'epsilon arrives later'), 10)]);
    expect(await index.search('epsilon', 5, 100)).toHaveLength(1);
    expect(loads).toBe(1);
    expect(await index.search('!!!', 5, 100)).toEqual([]);
  });

  it('cuts excerpts around the match and pages long turns, so one call never floods the context', async () => {
    const long = `${'filler words here. '.repeat(200)}The key is K-99-ALPHA. ${'more filler. '.repeat(200)}`;
    const graph = graphOf([long]);
    const index = new HistoryIndex(() => [...graph.allNodes()]);
    const [hit] = await index.search('K-99-ALPHA', 1, 120);
    expect(hit.excerpt.length).toBeLessThanOrEqual(122);
    expect(hit.excerpt).toContain('K-99-ALPHA');
    const first = await index.read(hit.id, 0, 1000);
    expect(first).toMatchObject({ offset: 0, more: true });
    const rest = await index.read(hit.id, 1000, 100_000);
    expect(first!.text + rest!.text).toBe(long);
    expect(rest!.more).toBe(false);
  });

  it('tries a failed load again on the next search instead of remembering the failure', async () => {
    let fail = true;
    const index = new HistoryIndex(() => {
      if (fail) throw new Error('disk went away');
      return [...graphOf(['recovered text']).allNodes()];
    });
    await expect(index.search('recovered', 1, 100)).rejects.toThrow('disk went away');
    fail = false;
    expect(await index.search('recovered', 1, 100)).toHaveLength(1);
  });
});
