import { describe, expect, it } from 'vitest';
import { createAgent, Run } from '../../../src/entries/runtime.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { RunFault } from '../../../src/entries/errors.js';
import type { RunEvent, ToolDefinition } from '../../../src/entries/runtime.js';
import { call, deferred, record, say, scriptedModel } from './helpers.js';

const approvalTool: ToolDefinition = {
  name: 'disk.wipe',
  description: 'Wipe.',
  inputSchema: { type: 'object' },
  execute: () => 'wiped',
  needsApproval: true,
};

async function collect(run: AsyncIterable<RunEvent>): Promise<{ events: RunEvent[]; error: unknown }> {
  const events: RunEvent[] = [];
  try {
    for await (const event of run) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

describe('Run', () => {
  it('is a promise of the snapshot and an async iterable of exactly its own events', async () => {
    const model = scriptedModel(say('one'), say('two'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });
    const all = record(agent);

    const first = agent.submit('a');
    const second = agent.submit('b');
    expect(first).toBeInstanceOf(Run);
    expect(first.runId).not.toBe(second.runId);
    const [a, b] = await Promise.all([collect(first), collect(second)]);

    // Read while it ran: it carries the step's snapshot too (built only while someone listens).
    expect(a.events.map((e) => e.kind)).toEqual(['run_started', 'text_delta', 'usage', 'snapshot', 'settled']);
    expect(a.events.every((e) => e.runId === first.runId)).toBe(true);
    expect(b.events.every((e) => e.runId === second.runId)).toBe(true);
    expect(a.events.find((e) => e.kind === 'text_delta')).toMatchObject({ delta: 'one' });
    expect(b.events.find((e) => e.kind === 'text_delta')).toMatchObject({ delta: 'two' });
    // The agent's own subscribers saw both, in order, and can tell them apart by runId.
    expect(all.map((e) => e.runId)).toEqual([...a.events, ...b.events].map((e) => e.runId));
    expect((await first).text).toBe('one');
    expect((await second).text).toBe('two');
  });

  it('keeps its events for a reader that comes late, even after it ended', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('late')).invoke });
    const run = agent.submit('hi');
    const snapshot = await run;

    const { events } = await collect(run);

    // Nobody listened while it ran, so no per-step snapshot was built; everything else is there.
    expect(events.map((e) => e.kind)).toEqual(['run_started', 'text_delta', 'usage', 'settled']);
    expect(events.at(-1)).toEqual({ kind: 'settled', snapshot, runId: run.runId });
  });

  it('gives a reader each event as it happens, while the run is still going', async () => {
    const gate = deferred<void>();
    const model = scriptedModel(async (request) => {
      request.onText?.('first ');
      await gate.promise;
      return say('first second');
    });
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });
    const run = agent.submit('go');
    const reader = run[Symbol.asyncIterator]();

    expect((await reader.next()).value).toMatchObject({ kind: 'run_started' });
    expect((await reader.next()).value).toMatchObject({ kind: 'text_delta', delta: 'first ' });
    gate.resolve();
    const rest: string[] = [];
    for (let next = await reader.next(); !next.done; next = await reader.next()) rest.push(next.value.kind);
    expect(rest).toEqual(['text_delta', 'usage', 'snapshot', 'settled']);
  });

  it('ends a faulted run with its faulted event, then throws its RunFault; reading it is handling it', async () => {
    const model = scriptedModel(() => {
      throw new Error('upstream down');
    });
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });

    const run = agent.submit('hi');
    const { events, error } = await collect(run);

    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'model_error' }, runId: run.runId });
    expect(RunFault.isInstance(error)).toBe(true);
    await expect(run).rejects.toBe(error);
  });

  it('is what approve, reject and continue return too, each with its own id', async () => {
    const model = scriptedModel(call({ name: 'disk_wipe', id: 'w1' }), say('wiped'), call({ name: 'disk_wipe', id: 'w2' }), say('kept'));
    const agent = createAgent({ model: 'm', tools: [approvalTool] }, { invokeModel: model.invoke, store: new MemorySessionStore() });

    const asked = agent.submit('wipe it');
    expect((await asked).status).toBe('waiting');
    const approved = agent.approve('w1');
    const { events } = await collect(approved);
    expect(approved).toBeInstanceOf(Run);
    expect(approved.runId).not.toBe(asked.runId);
    expect(events.map((e) => e.kind)).toContain('tool_finished');
    expect((await approved).text).toBe('wiped');

    await agent.submit('again');
    const rejected = agent.reject('w2', 'no');
    expect((await rejected).text).toBe('kept');
    const continued = agent.continue();
    expect(continued).toBeInstanceOf(Run);
    expect((await continued).status).toBe('settled');
    await agent.close();
  });

  it('rejects at once, with nothing queued or published, when submit options cannot work', async () => {
    const model = scriptedModel(say('never'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });
    const events = record(agent);

    const run = agent.submit('hi', { temperature: 7 });

    await expect(run).rejects.toMatchObject({ name: 'ModelControlsError' });
    expect((await collect(run)).events).toEqual([]);
    expect(events).toEqual([]);
    expect(model.requests).toHaveLength(0);
  });
});
