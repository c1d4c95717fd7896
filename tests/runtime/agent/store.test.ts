import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import type { StepInput, Turn } from '../../../src/entries/runtime.js';
import type { SessionStoreLike } from '../../../src/entries/store.js';
import { call, say, scriptedModel, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** A real store that counts its durable writes (appends with something to write). */
function countingStore(root: string) {
  const store = new SessionStore(root);
  const counts = { writes: 0 };
  const counted: SessionStoreLike = {
    acquire: (id) => store.acquire(id),
    read: (id) => store.read(id),
    readLivePath: (id) => store.readLivePath(id),
    append: (lease, records) => {
      if (records.length > 0) counts.writes++;
      return store.append(lease, records);
    },
    release: (lease) => store.release(lease),
  };
  return { store: counted, counts };
}

const texts = (turns: Turn[]) => turns.map((t) => t.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)).join('|'));

describe('the conductor over a session store', () => {
  it('makes each step durable as it settles, one write per settled step, and a fresh agent resumes the conversation', async () => {
    const { store, counts } = countingStore(dir.path);
    const onDisk = async () => {
      const graph = await new SessionStore(dir.path).loadSession('clock-chat');
      return graph.leaf === null ? [] : texts(graph.resume(graph.leaf));
    };
    const seenByTool: string[][] = [];
    const seenByModel: string[][] = [];
    const tools = [
      {
        name: 'clock.now',
        description: 'Now.',
        inputSchema: { type: 'object' },
        execute: async () => (seenByTool.push(await onDisk()), '12:00'),
      },
    ];
    const step = (reply: ReturnType<typeof say>) => async () => (seenByModel.push(await onDisk()), reply);
    const model = scriptedModel(
      step(call({ name: 'clock_now', id: 't1' })),
      step(call({ name: 'clock_now', id: 't2' })),
      step(say('It is noon.')),
      step(say('Still noon.')),
    );
    const agent = createAgent({ model: 'm', tools, sessionId: 'clock-chat' }, { store, invokeModel: model.invoke });

    const first = await agent.submit('time?');
    // Each tool saw its own call on disk before it ran; each model call saw everything before it, results included.
    expect(seenByTool).toEqual([
      ['time?', 'tool_call'],
      ['time?', 'tool_call', 'tool_result', 'tool_call'],
    ]);
    expect(seenByModel).toEqual([
      ['time?'],
      ['time?', 'tool_call', 'tool_result'],
      ['time?', 'tool_call', 'tool_result', 'tool_call', 'tool_result'],
    ]);
    // The prompt, two replies with calls, two batches of results, the final answer: one write each.
    expect(counts.writes).toBe(6);
    await agent.submit('and now?');
    expect(counts.writes).toBe(8);
    await agent.close();

    const fresh = createAgent({ model: 'm', tools }, { store: new SessionStore(dir.path), invokeModel: scriptedModel(say('Yes.')).invoke });
    const resumed = await fresh.resume('clock-chat');
    expect(fresh.sessionId).toBe('clock-chat');
    expect(resumed.messages).toHaveLength(first.messages.length + 2);
    expect(resumed.status).toBe('settled');
    const next = await fresh.submit('sure?');
    expect(texts(next.messages).slice(-2)).toEqual(['sure?', 'Yes.']);
    await fresh.close();
  });

  it('persists a faulted run too, so the prompt is not lost', async () => {
    const { store, counts } = countingStore(dir.path);
    const agent = createAgent({ model: 'm', sessionId: 's' }, { store, invokeModel: () => Promise.reject(new Error('offline')) });

    await expect(agent.submit('remember this')).rejects.toMatchObject({ kind: 'model_error' });
    expect(counts.writes).toBe(1);
    await agent.close();

    const graph = await new SessionStore(dir.path).loadSession('s');
    expect(texts(graph.resume(graph.leaf!))).toEqual(['remember this']);
  });

  it('faults with store_error when the session is held by another writer', async () => {
    const holder = new SessionStore(dir.path);
    const lease = await holder.acquire('busy');
    const agent = createAgent(
      { model: 'm', sessionId: 'busy' },
      { store: new SessionStore(dir.path), invokeModel: scriptedModel(say('no')).invoke },
    );

    await expect(agent.submit('hi')).rejects.toMatchObject({ kind: 'store_error', snapshot: { status: 'faulted' } });
    await holder.release(lease);
    await expect(agent.submit('hi')).resolves.toMatchObject({ status: 'settled' });
    await agent.close();
  });

  it('records a condensation in the session, so a resumed agent sees the condensed context', async () => {
    const summary: Turn = { role: 'user', blocks: [{ kind: 'text', text: `${COMPACTION_PREFIX} we said hello twice` }] };
    const prepareStep = ({ messages }: StepInput) =>
      messages.length >= 5 ? { compaction: { summary, keptFrom: messages.length - 1 } } : undefined;
    const model = scriptedModel(say('hello 1'), say('hello 2'), say('hello 3'), say('resumed answer'));
    const agent = createAgent(
      { model: 'm', sessionId: 'long', prepareStep },
      { store: new SessionStore(dir.path), invokeModel: model.invoke },
    );
    await agent.submit('one');
    await agent.submit('two');
    const third = await agent.submit('three');
    await agent.close();
    expect(texts(third.messages)).toEqual([summary.blocks[0].kind === 'text' ? summary.blocks[0].text : '', 'three', 'hello 3']);

    const fresh = createAgent({ model: 'm' }, { store: new SessionStore(dir.path), invokeModel: model.invoke });
    const resumed = await fresh.resume('long');
    expect(resumed.messages).toEqual(third.messages);
    await fresh.submit('four');
    expect(texts(model.requests[3].messages)).toEqual([...texts(third.messages), 'four']);
    await fresh.close();

    // Nothing was deleted: the full history is still on the path.
    const graph = await new SessionStore(dir.path).loadSession('long');
    expect(graph.pathTo(graph.leaf!).length).toBe(9);
  });
});
