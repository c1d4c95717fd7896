import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore, ABORTED_RESULT, RunFault } from '../../../src/entries/runtime.js';
import type { ModelInvoker, ToolDefinition } from '../../../src/entries/runtime.js';
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

  it('abort with no run in progress does nothing to the next run', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('fine')).invoke });
    agent.abort();
    await expect(agent.submit('hi')).resolves.toMatchObject({ status: 'settled', text: 'fine' });
  });
});
