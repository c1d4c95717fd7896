import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { ApprovalsPendingError, UnknownApprovalError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/entries/runtime.js';

import { call, record, say, scriptedModel, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

/** A tool whose every run is counted, so "never executed" is observable. */
function counted(name: string, needsApproval: boolean) {
  const runs: unknown[] = [];
  const definition: ToolDefinition = {
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object' },
    needsApproval,
    execute: (input) => (runs.push(input), `${name} ran`),
  };
  return { definition, runs };
}

describe('approvals', () => {
  it('holds a needsApproval call, runs the rest of the batch right away, and settles waiting', async () => {
    const wipe = counted('disk.wipe', true);
    const look = counted('disk.look', false);
    const model = scriptedModel(call({ name: 'disk_look', id: 'look' }, { name: 'disk_wipe', input: { all: true }, id: 'wipe' }));
    const agent = createAgent({ model: 'm', tools: [wipe.definition, look.definition] }, { invokeModel: model.invoke });
    const events = record(agent);

    const run = agent.submit('clean up');
    const snapshot = await run;

    expect(snapshot.status).toBe('waiting');
    expect(snapshot.pendingApprovals).toEqual([{ approvalId: 'wipe', callId: 'wipe', name: 'disk.wipe', input: { all: true } }]);
    expect(agent.pendingApprovals()).toEqual(snapshot.pendingApprovals);
    expect(wipe.runs).toHaveLength(0);
    expect(look.runs).toHaveLength(1);
    expect(events).toContainEqual({
      kind: 'approval_requested',
      approvalId: 'wipe',
      callId: 'wipe',
      name: 'disk.wipe',
      input: { all: true },
      runId: run.runId,
    });
    expect(events.at(-1)).toMatchObject({ kind: 'settled', snapshot: { status: 'waiting' } });
    expect(model.requests).toHaveLength(1);
  });

  it('runs an approved call, sends the whole batch back, and continues the run', async () => {
    const wipe = counted('disk.wipe', true);
    const look = counted('disk.look', false);
    const model = scriptedModel(call({ name: 'disk_look', id: 'look' }, { name: 'disk_wipe', id: 'wipe' }), say('Wiped.'));
    const agent = createAgent({ model: 'm', tools: [wipe.definition, look.definition] }, { invokeModel: model.invoke });
    const events = record(agent);
    await agent.submit('clean up');

    const snapshot = await agent.approve('wipe');

    expect(wipe.runs).toHaveLength(1);
    expect(snapshot).toMatchObject({ status: 'settled', text: 'Wiped.', pendingApprovals: [] });
    const sent = model.requests[1].messages.slice(-2).flatMap((t) => t.blocks);
    expect(sent).toEqual([
      { kind: 'tool_result', callId: 'look', content: 'disk.look ran' },
      { kind: 'tool_result', callId: 'wipe', content: 'disk.wipe ran' },
    ]);
    expect(events.filter((e) => e.kind === 'run_started').map((e) => (e as { prompt: unknown }).prompt)).toEqual(['clean up', null]);
  });

  it('never runs a rejected call: the model gets an error result with the reason', async () => {
    const wipe = counted('disk.wipe', true);
    const model = scriptedModel(call({ name: 'disk_wipe', id: 'wipe' }), say('Understood, I will not wipe.'));
    const agent = createAgent({ model: 'm', tools: [wipe.definition] }, { invokeModel: model.invoke });
    await agent.submit('clean up');

    const snapshot = await agent.reject('wipe', 'too risky');

    expect(wipe.runs).toHaveLength(0);
    expect(snapshot.status).toBe('settled');
    expect(model.requests[1].messages.at(-1)!.blocks).toEqual([
      { kind: 'tool_result', callId: 'wipe', content: 'The user rejected this tool call. Reason: too risky', isError: true },
    ]);
  });

  it('waits for every call of a batch to be decided before calling the model again', async () => {
    const a = counted('a', true);
    const b = counted('b', true);
    const model = scriptedModel(call({ name: 'a', id: 'a1' }, { name: 'b', id: 'b1' }), say('both handled'));
    const agent = createAgent({ model: 'm', tools: [a.definition, b.definition] }, { invokeModel: model.invoke });
    await agent.submit('do both');

    const half = await agent.approve('a1');
    expect(half.status).toBe('waiting');
    expect(half.pendingApprovals.map((p) => p.approvalId)).toEqual(['b1']);
    expect(model.requests).toHaveLength(1);

    const done = await agent.reject('b1');
    expect(done.status).toBe('settled');
    expect(a.runs).toHaveLength(1);
    expect(b.runs).toHaveLength(0);
    expect(model.requests).toHaveLength(2);
    // The API needs every result of the batch in the one user message after the calls.
    expect(model.requests[1].messages.slice(2).flatMap((t) => t.blocks.map((x) => x.kind))).toEqual(['tool_result', 'tool_result']);
  });

  it('refuses submit while approvals are pending, and approvals it does not know', async () => {
    const wipe = counted('disk.wipe', true);
    const model = scriptedModel(call({ name: 'disk_wipe', id: 'wipe' }));
    const agent = createAgent({ model: 'm', tools: [wipe.definition] }, { invokeModel: model.invoke });
    await agent.submit('clean up');

    const refused = await agent.submit('something else').catch((e: unknown) => e);
    expect(ApprovalsPendingError.isInstance(refused)).toBe(true);
    expect((refused as ApprovalsPendingError).pending.map((p) => p.approvalId)).toEqual(['wipe']);
    await expect(agent.approve('no-such-call')).rejects.toSatisfy(UnknownApprovalError.isInstance);
    expect(wipe.runs).toHaveLength(0);
    expect(model.requests).toHaveLength(1);
  });

  it('keeps pending approvals across a fresh agent and a fresh store over the same files', async () => {
    const first = counted('disk.wipe', true);
    const store1 = new SessionStore(dir.path);
    const agent1 = createAgent(
      { model: 'm', tools: [first.definition] },
      { store: store1, invokeModel: scriptedModel(call({ name: 'disk_wipe', id: 'w' })).invoke },
    );
    const waiting = await agent1.submit('wipe it');
    await agent1.close();

    const second = counted('disk.wipe', true);
    const model = scriptedModel(say('Done.'));
    const agent2 = createAgent(
      { model: 'm', tools: [second.definition] },
      { store: new SessionStore(dir.path), invokeModel: model.invoke },
    );
    const resumed = await agent2.resume(waiting.sessionId);

    expect(resumed.status).toBe('waiting');
    expect(resumed.pendingApprovals).toEqual(waiting.pendingApprovals);
    expect(agent2.pendingApprovals()).toEqual(waiting.pendingApprovals);
    const done = await agent2.approve('w');
    expect(done.status).toBe('settled');
    expect(first.runs).toHaveLength(0);
    expect(second.runs).toHaveLength(1);
    await agent2.close();

    const reread = await new SessionStore(dir.path).loadSession(waiting.sessionId);
    expect(reread.resume(reread.leaf!).map((t) => t.blocks[0].kind)).toEqual(['text', 'tool_call', 'tool_result', 'text']);
  });

  it('resumes a batch whose other calls ran as waiting, not interrupted: the results before the decision are no cut-off prompt', async () => {
    const wipe = counted('disk.wipe', true);
    const look = counted('disk.look', false);
    const agent1 = createAgent(
      { model: 'm', tools: [wipe.definition, look.definition] },
      {
        store: new SessionStore(dir.path),
        invokeModel: scriptedModel(call({ name: 'disk_look', id: 'look' }, { name: 'disk_wipe', id: 'wipe' })).invoke,
      },
    );
    const waiting = await agent1.submit('clean up');
    await agent1.close();
    // The context ends with the look's result, a user turn, while the wipe waits.
    expect(waiting.messages.at(-1)!.role).toBe('user');

    const agent2 = createAgent(
      { model: 'm', tools: [wipe.definition, look.definition] },
      { store: new SessionStore(dir.path), invokeModel: scriptedModel(say('Done.')).invoke },
    );
    const resumed = await agent2.resume(waiting.sessionId);
    expect(resumed.status).toBe('waiting');
    expect(resumed.interrupted).toBeUndefined();
    expect(resumed.pendingApprovals.map((p) => p.approvalId)).toEqual(['wipe']);
    await agent2.close();
  });
});
