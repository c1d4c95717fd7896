import { describe, expect, it } from 'vitest';
import { createAgent, RunLedger, SnapshotAccumulator } from '../../../src/entries/runtime.js';
import { InvalidPromptError, AgentClosedError } from '../../../src/entries/errors.js';
import type { RunEvent } from '../../../src/entries/runtime.js';
import { call, deferred, record, say, scriptedModel, usage } from './helpers.js';

const tool = { name: 'lookup', description: 'Look it up.', inputSchema: { type: 'object' }, execute: () => 'found' };

describe('what a run publishes', () => {
  it('publishes run_started, streamed text, tool events, usage and a snapshot per step, then settled, in order', async () => {
    const model = scriptedModel(
      (request) => {
        request.onText?.('Let me ');
        request.onText?.('look.');
        return { ...call({ name: 'lookup', id: 'l1' }), usage: usage(100, 20) };
      },
      say('Found it.', usage(150, 10)),
    );
    const agent = createAgent({ model: 'm', tools: [tool] }, { invokeModel: model.invoke });
    const events = record(agent);

    const run = agent.submit('find it');
    const snapshot = await run;

    expect(events.map((e) => e.kind)).toEqual([
      'run_started',
      'text_delta',
      'text_delta',
      'usage',
      'tool_started',
      'tool_finished',
      'snapshot',
      'text_delta',
      'usage',
      'snapshot',
      'settled',
    ]);
    expect(events[0]).toEqual({ kind: 'run_started', sessionId: agent.sessionId, prompt: 'find it', runId: run.runId });
    // Every event names the run it belongs to.
    expect(new Set(events.map((e) => e.runId))).toEqual(new Set([run.runId]));
    expect(
      events
        .filter((e) => e.kind === 'text_delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Let me look.Found it.');
    const usages = events.filter((e): e is Extract<RunEvent, { kind: 'usage' }> => e.kind === 'usage');
    expect(usages.map((u) => [u.usage.inputTokens, u.total.inputTokens])).toEqual([
      [100, 100],
      [150, 250],
    ]);
    expect(events.at(-1)).toEqual({ kind: 'settled', snapshot, runId: run.runId });
    expect(snapshot).toMatchObject({ status: 'settled', text: 'Found it.', pendingApprovals: [], sessionId: agent.sessionId });
    expect((events[6] as { snapshot: { status: string } }).snapshot.status).toBe('running');
  });

  it('publishes on an injected ledger, so a SnapshotAccumulator can follow the run', async () => {
    const ledger = new RunLedger();
    const accumulator = new SnapshotAccumulator();
    accumulator.attach(ledger);
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('hi')).invoke, ledger });

    await agent.submit('hello');

    expect(accumulator.getSnapshot()).toMatchObject({ status: 'settled', text: 'hi' });
  });

  it('queues concurrent submits: each run finishes before the next starts, in call order', async () => {
    const gate = deferred();
    const model = scriptedModel(async () => (await gate.promise, say('first answer')), say('second answer'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });
    const events = record(agent);

    const first = agent.submit('first');
    const second = agent.submit('second');
    await new Promise((r) => setTimeout(r, 10));
    expect(events.filter((e) => e.kind === 'run_started')).toHaveLength(1);
    gate.resolve();
    const [a, b] = await Promise.all([first, second]);

    expect(events.map((e) => e.kind).filter((k) => k === 'run_started' || k === 'settled')).toEqual([
      'run_started',
      'settled',
      'run_started',
      'settled',
    ]);
    expect(a.text).toBe('first answer');
    expect(b.messages.map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['first', 'first answer', 'second', 'second answer']);
    expect(model.requests[1].messages).toHaveLength(3);
  });

  it('refuses an empty prompt with a typed error and runs nothing', async () => {
    const model = scriptedModel(say('never'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });

    await expect(agent.submit('   ')).rejects.toSatisfy(InvalidPromptError.isInstance);
    await expect(agent.submit(42 as unknown as string)).rejects.toSatisfy(InvalidPromptError.isInstance);
    expect(model.requests).toHaveLength(0);
  });

  it('refuses work after close', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: scriptedModel().invoke });
    await agent.close();
    await expect(agent.submit('hi')).rejects.toSatisfy(AgentClosedError.isInstance);
    await expect(agent.resume('x')).rejects.toSatisfy(AgentClosedError.isInstance);
  });

  it('faults with model_error when the invoker rejects, and keeps the prompt so nothing is lost', async () => {
    const agent = createAgent({ model: 'm' }, { invokeModel: () => Promise.reject(new Error('socket hang up')) });
    const events = record(agent);

    const failure = await agent.submit('hi').catch((e: unknown) => e);

    expect(failure).toMatchObject({ kind: 'model_error', message: expect.stringContaining('socket hang up') });
    expect(events.at(-1)).toMatchObject({ kind: 'faulted', error: { kind: 'model_error' }, snapshot: { status: 'faulted' } });
    expect((failure as { snapshot: { messages: unknown[] } }).snapshot.messages).toHaveLength(1);
  });
});
