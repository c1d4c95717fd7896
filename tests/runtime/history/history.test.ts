// History recall: what condensation took out of the context stays reachable, verbatim, by words and by id.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent, SessionGraph, SessionStore } from '../../../src/entries/runtime.js';
import { AgentConfigError } from '../../../src/entries/errors.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { HISTORY_NOTE, HistoryIndex, turnText } from '../../../src/runtime/history/index.js';
import type { ModelInvoker, RunEvent, SessionNode, Turn } from '../../../src/entries/runtime.js';
import type { ModelReply, ModelRequest } from '../../../src/entries/models.js';

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
      { kind: 'text', text: `${COMPACTION_PREFIX}\nSummary: the user set up the project.` },
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

  it('forgets the branch the user left: after branchFrom, search and read reach only the new live path', async () => {
    const store = new MemorySessionStore();
    let oldInvoice = '';
    const replies = model([
      ...facts.map((_, i) => answer(`Noted ${i}.`)),
      answer('Noted the port.'),
      answer('Noted the day.'),
      call('history_search', { query: 'INV-20417 invoice paid' }, 'h1'),
      () => call('history_read', { id: oldInvoice }, 'h2'),
      call('history_search', { query: 'port 7000' }, 'h3'),
      answer('Nothing on record about that invoice.'),
    ]);
    const agent = createAgent({ model: 'm', sessionId: 's', compaction: { keepRecent: 2 } }, { store, invokeModel: replies.invoke });
    await agent.submit(facts[0]);
    await agent.submit(facts[1]);
    const branchPoint = (await store.loadSession('s')).leaf!;
    await agent.submit(facts[2]);
    await agent.submit(facts[3]);
    await agent.condense();
    const left = await store.loadSession('s');
    oldInvoice = left.nodesTo(left.leaf!).find((node) => turnText(node.turn) === facts[2])!.id;

    await agent.branchFrom(branchPoint);
    await agent.submit('The new plan uses port 7000.');
    await agent.submit('Deploy on Friday.');
    await agent.condense();
    const final = await agent.submit('When was INV-20417 paid?');

    const [afterSearch, afterRead, afterPort] = replies.requests.slice(-3);
    const searched = JSON.parse(resultOf(afterSearch, 'h1')!.content) as { found: Array<{ id: string; excerpt: string }> };
    expect(searched.found.map((hit) => hit.excerpt).join(' ')).not.toContain('INV-20417');
    expect(resultOf(afterRead, 'h2')).toMatchObject({ isError: true });
    const port = JSON.parse(resultOf(afterPort, 'h3')!.content) as { found: Array<{ excerpt: string }> };
    expect(port.found[0].excerpt).toBe('The new plan uses port 7000.');
    expect(final.text).toBe('Nothing on record about that invoice.');
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
      content: expect.stringContaining('No compacted turn has the id "not-a-node"'),
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

  it('indexes what a condensation drops as it drops it, and reads the turns condensed before it once', async () => {
    const graph = graphOf(['alpha beta', 'gamma delta']);
    let loads = 0;
    const index = new HistoryIndex(() => {
      loads++;
      return [...graph.allNodes()];
    });
    const dropped = graph.append(say('user', 'dropped by the first condensation'), 9);
    index.add([dropped]);
    expect((await index.search('gamma', 5, 100)).map((h) => h.excerpt)).toEqual(['gamma delta']);
    expect((await index.search('dropped', 5, 100)).map((h) => h.id)).toEqual([dropped.id]);
    index.add([graph.append(say('assistant', 'epsilon arrives later'), 10)]);
    expect(await index.search('epsilon', 5, 100)).toHaveLength(1);
    expect(loads).toBe(1);
    expect(await index.search('!!!', 5, 100)).toEqual([]);
  });

  it('reads nothing for an agent that neither condenses nor searches', async () => {
    let loads = 0;
    const index = new HistoryIndex(() => {
      loads++;
      return [];
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(loads).toBe(0);
    await index.read('any', 0, 10);
    expect(loads).toBe(1);
  });

  it('indexes a large history in slices, letting other work run in between', async () => {
    const graph = graphOf(Array.from({ length: 3_000 }, (_, i) => `turn ${i} words`));
    const index = new HistoryIndex(() => [...graph.allNodes()]);
    const order: string[] = [];
    const searched = index.search('turn', 1, 100).then(() => order.push('search'));
    setImmediate(() => order.push('other work'));
    await searched;
    expect(order).toEqual(['other work', 'search']);
  });

  it('holds only the live path after switchPath: the branch the user left is neither found nor read', async () => {
    // root -> kept -> left (condensed away on the old path); a branch from root condenses "taken" instead.
    const graph = new SessionGraph('b');
    const root = graph.append(say('user', 'shared beginning'), 1);
    const left = graph.append(say('assistant', 'secret on the abandoned branch'), 2);
    const index = new HistoryIndex(() => [root, left]);
    expect(await index.search('secret', 5, 100)).toHaveLength(1);

    graph.branchFrom(root.id);
    const taken = graph.append(say('assistant', 'the branch taken instead'), 3);
    index.switchPath(() => [root, taken]);
    expect(await index.search('secret', 5, 100)).toEqual([]);
    expect(await index.read(left.id, 0, 100)).toBeUndefined();
    expect((await index.search('branch taken', 5, 100)).map((h) => h.id)).toEqual([taken.id]);
    expect((await index.search('shared', 5, 100)).map((h) => h.id)).toEqual([root.id]);
  });

  it('lets no turn of the old path in when switchPath comes while its load is still running, or when the new load fails once', async () => {
    const graph = graphOf(['old path words', 'new path words']);
    const [old, now] = [...graph.allNodes()];
    let release: (nodes: SessionNode[]) => void = () => undefined;
    const index = new HistoryIndex(() => new Promise<SessionNode[]>((resolve) => (release = resolve)));
    index.prepare();
    let fail = true;
    index.switchPath(() => {
      if (fail) throw new Error('store went away');
      return [now];
    });
    release([old]);
    await expect(index.search('words', 5, 100)).rejects.toThrow('store went away');
    fail = false;
    expect((await index.search('words', 5, 100)).map((h) => h.id)).toEqual([now.id]);
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

describe('history recall of identifiers deep in long turns', () => {
  // Filler that holds query words as parts of longer words ("ts" in "tests", "run" in "running", "src" in
  // "srcset", "inv" in "invoice"): an excerpt anchored on substrings would start there, not at the identifier.
  const filler = [
    'The tests were running again while the events from the clients kept arriving at the inbox.',
    'Note the srcset attribute in the invoice templates, and the inventory of the npmrc settings.',
    'Everyone agreed the rollout waits for the next window, so the greps over old logs can stay as they are.',
    'Some results came back slowly, but the runners recovered and the dashboards went green after lunch.',
  ].join(' ');
  const hex = (i: number, n: number) => ((i + 1) * 2654435761).toString(16).padStart(n, '0').slice(-n);
  const identifiers = Array.from(
    { length: 60 },
    (_, i) =>
      [
        `src/runtime/store/${hex(i, 6)}/${hex(i + 7, 4)}.ts`,
        `npm run test -- --grep ${hex(i + 3, 8)}`,
        `PROJ-${40_000 + i * 37}`,
        `/var/lib/indusagi/sessions/${hex(i + 11, 8)}.jsonl`,
      ][i % 4],
  );
  // About 700 characters each, with the identifier anywhere from the first words to the last.
  const turnOf = (i: number) => {
    const before = `${filler} ${filler}`.slice(0, (i * 53) % 600).replace(/\S*$/, '');
    return `${before} The one to keep is ${identifiers[i]} for later. ${filler} ${filler}`.slice(0, 720);
  };

  it('returns each identifier verbatim in its excerpt after many condensations (the outside check: 60 turns, ~700 characters)', async () => {
    const store = new MemorySessionStore();
    let condensations = 0;
    const invoke: ModelInvoker = async (request) =>
      answer(request.cacheable === false ? 'Summary: the user listed things to keep.' : 'Noted.');
    const agent = createAgent(
      { model: 'm', sessionId: 'long', contextWindow: 2_000, maxOutputTokens: 200, compaction: { keepRecent: 2 } },
      { store, invokeModel: invoke },
    );
    agent.subscribe((e) => {
      if (e.kind === 'compacted') condensations++;
    });
    for (let i = 0; i < identifiers.length; i++) await agent.submit(turnOf(i));
    expect(identifiers.every((id, i) => turnOf(i).includes(id) && turnOf(i).length > 650)).toBe(true);
    expect(condensations).toBeGreaterThanOrEqual(9);

    await agent.close();

    // Search the way the model does: history_search with its default k and excerpt size, at the seam.
    const graph = await store.loadSession('long');
    const path = graph.nodesTo(graph.leaf!);
    const firstKept = path.findLast((n) => n.condenses !== undefined)!.condenses!.firstKept;
    const compactedAway = path
      .slice(
        0,
        path.findIndex((n) => n.id === firstKept),
      )
      .map((n) => turnText(n.turn));
    const searched = identifiers.filter((_, i) => compactedAway.includes(turnOf(i)));
    expect(searched.length).toBeGreaterThanOrEqual(50);
    const script = model([
      {
        turn: {
          role: 'assistant',
          blocks: searched.map((query, i) => ({ kind: 'tool_call', id: `q${i}`, name: 'history_search', input: { query } })),
        },
        stopReason: 'tool_use',
      },
      answer('done'),
    ]);
    const reader = createAgent({ model: 'm', compaction: { keepRecent: 2 } }, { store, invokeModel: script.invoke });
    await reader.resume('long');
    await reader.submit('Find every identifier again.');
    const missing = searched.filter((id, i) => {
      const result = JSON.parse(resultOf(script.requests[1], `q${i}`)!.content) as { found: Array<{ excerpt: string }> };
      return !result.found.some((hit) => hit.excerpt.includes(id));
    });
    expect(missing).toEqual([]);
    await reader.close();
  });
});
