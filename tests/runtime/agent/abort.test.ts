import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { RunFault } from '../../../src/entries/errors.js';
import { ABORTED_RESULT } from '../../../src/runtime/loop/index.js';
import type { ModelInvoker, ToolDefinition } from '../../../src/entries/runtime.js';
import type { SessionStoreLike } from '../../../src/entries/store.js';
import { call, record, say, scriptedModel, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** Streams one piece of text, then waits until its signal fires, like a long reply cut short. */
const streamsUntilAborted: ModelInvoker = (request) =>
  new Promise((_, reject) => {
    request.onText?.('Partial ans');
    request.signal!.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
  });

const tool = (name: string, execute: ToolDefinition['execute'], needsApproval = false): ToolDefinition => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  execute,
  needsApproval,
});

describe('abort', () => {
  it('mid-stream: faults with kind aborted and keeps no half assistant turn, in memory or on disk', async () => {
    const store = new SessionStore(dir.path);
    const agent = createAgent({ model: 'm' }, { store, invokeModel: streamsUntilAborted });
    const events = record(agent);
    agent.subscribe((e) => {
      if (e.kind === 'text_delta') agent.abort();
    });

    const failure = (await agent.submit('tell me a story').catch((e: unknown) => e)) as RunFault;

    expect(RunFault.isInstance(failure)).toBe(true);
    expect(failure.kind).toBe('aborted');
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'aborted' } });
    expect(failure.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'tell me a story' }] }]);
    await agent.close();
    const graph = await new SessionStore(dir.path).loadSession(agent.sessionId);
    expect(graph.resume(graph.leaf!)).toEqual(failure.snapshot.messages);
  });

  it('mid-tool: stops waiting for a tool that ignores its signal, and answers every call so none dangles', async () => {
    let sawSignal: AbortSignal | undefined;
    const stubborn = tool('stubborn', (_input, ctx) => {
      sawSignal = ctx.signal;
      return new Promise(() => {}); // never settles, ignores the signal
    });
    const quick = tool('quick', () => 'quick result');
    const gated = tool('gated', () => 'never', true);
    const store = new SessionStore(dir.path);
    const model = scriptedModel(
      call({ name: 'quick', id: 'q' }, { name: 'stubborn', id: 's' }, { name: 'gated', id: 'g' }),
      say('after abort'),
    );
    const agent = createAgent({ model: 'm', tools: [stubborn, quick, gated] }, { store, invokeModel: model.invoke });
    agent.subscribe((e) => {
      if (e.kind === 'tool_finished' && e.callId === 'q') setImmediate(() => agent.abort());
    });

    const failure = (await agent.submit('go').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('aborted');
    expect(sawSignal?.aborted).toBe(true);
    expect(failure.snapshot.messages.at(-1)!.blocks).toEqual([
      { kind: 'tool_result', callId: 'q', content: 'quick result' },
      { kind: 'tool_result', callId: 's', content: ABORTED_RESULT, isError: true },
      { kind: 'tool_result', callId: 'g', content: ABORTED_RESULT, isError: true },
    ]);
    expect(agent.pendingApprovals()).toEqual([]);

    // The session is consistent: the next run goes on from it, on disk as in memory.
    const next = await agent.submit('carry on');
    expect(next.text).toBe('after abort');
    await agent.close();
    const graph = await new SessionStore(dir.path).loadSession(agent.sessionId);
    expect(graph.resume(graph.leaf!)).toEqual(next.messages);
  });

  it('honours a per-submit signal, including one aborted before the run starts', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: streamsUntilAborted });
    const controller = new AbortController();
    agent.subscribe((e) => {
      if (e.kind === 'text_delta') controller.abort();
    });
    await expect(agent.submit('one', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' });
    await expect(agent.submit('two', { signal: AbortSignal.abort() })).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('a signal shared by many runs (a lead run signal, given to each sub-agent run) keeps nothing of the settled ones, and still stops the next', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('one'), say('two'), say('three')).invoke });
    const controller = new AbortController();
    for (const text of ['one', 'two', 'three']) {
      await expect(agent.submit('hi', { signal: controller.signal })).resolves.toMatchObject({ status: 'settled', text });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    }
    const stopped = createAgent({ model: 'm' }, { invokeModel: streamsUntilAborted });
    stopped.subscribe((e) => {
      if (e.kind === 'text_delta') controller.abort();
    });
    await expect(stopped.submit('four', { signal: controller.signal })).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('abort with no run in progress does nothing to the next run', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('fine')).invoke });
    agent.abort();
    await expect(agent.submit('hi')).resolves.toMatchObject({ status: 'settled', text: 'fine' });
  });
});

/** A store that waits at `acquire` or `append` until the test lets it go: a database row held FOR UPDATE, a hung disk. */
function stalledStore() {
  const inner = new MemorySessionStore();
  const gates = { acquire: false, append: false };
  const waiting: Array<() => void> = [];
  const stall = (): Promise<void> => new Promise<void>((resolve) => waiting.push(resolve));
  const store: SessionStoreLike = {
    acquire: async (id) => {
      if (gates.acquire) await stall();
      return inner.acquire(id);
    },
    read: (id) => inner.read(id),
    append: async (lease, records) => {
      if (gates.append) await stall();
      return inner.append(lease, records);
    },
    release: (lease) => inner.release(lease),
  };
  const stalled = (): number => waiting.length;
  const letGo = (): void => {
    gates.acquire = false;
    gates.append = false;
    for (const resolve of waiting.splice(0)) resolve();
  };
  return { store, inner, gates, stalled, letGo };
}

describe('abort while the store does not answer', () => {
  it('ends a run waiting for the writer lease at once; the next run takes the session once the store answers', async () => {
    const { store, inner, gates, stalled, letGo } = stalledStore();
    gates.acquire = true;
    const agent = createAgent({ model: 'm', sessionId: 's' }, { store, invokeModel: scriptedModel(say('hello')).invoke });
    const events = record(agent);

    const run = agent.submit('hi');
    await waitFor(() => stalled() === 1);
    agent.abort();
    const failure = (await run.catch((e: unknown) => e)) as RunFault;

    // The run ended while the store still held it up.
    expect(stalled()).toBe(1);
    expect(failure).toMatchObject({ kind: 'aborted' });
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'aborted' } });
    letGo();
    await expect(agent.submit('hi again')).resolves.toMatchObject({ status: 'settled', text: 'hello' });
    await agent.close();
    const graph = await inner.loadSession('s');
    expect(graph.pathTo(graph.leaf!).map((t) => t.blocks[0])).toEqual([
      { kind: 'text', text: 'hi again' },
      { kind: 'text', text: 'hello' },
    ]);
  });

  it('ends a run whose step cannot be made durable at once; what it settled reaches the store once it answers', async () => {
    const { store, inner, gates, stalled, letGo } = stalledStore();
    let ran = 0;
    const model = scriptedModel(say('ready'), call({ name: 'note', id: 'n1' }), say('never asked'));
    const agent = createAgent({ model: 'm', sessionId: 's', tools: [tool('note', () => ++ran)] }, { store, invokeModel: model.invoke });
    await agent.submit('warm up');
    gates.append = true;

    const run = agent.submit('take a note');
    await waitFor(() => stalled() === 1);
    agent.abort();
    const failure = (await run.catch((e: unknown) => e)) as RunFault;

    expect(stalled()).toBeGreaterThanOrEqual(1);
    expect(failure).toMatchObject({ kind: 'aborted' });
    // Its prompt was held up before the model was asked: nothing ran, nothing was spent.
    expect(ran).toBe(0);
    expect(model.requests).toHaveLength(1);
    letGo();
    await agent.close();
    const graph = await inner.loadSession('s');
    expect(graph.pathTo(graph.leaf!).some((t) => t.blocks.some((b) => b.kind === 'text' && b.text === 'take a note'))).toBe(true);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}
