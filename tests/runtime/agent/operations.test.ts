// The Agent's own ways to change a session without a prompt: condense(), branchFrom(), continue(), what
// resume() says about a damaged session file, and what resume() of another session leaves behind.
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
// The vendor-free factory behind createAgent (internal): it refuses deps createAgent would fill in.
import { createConductor } from '../../../src/runtime/agent/index.js';
import { AgentConfigError, BranchPointError, RunFault } from '../../../src/entries/errors.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { HISTORY_NOTE } from '../../../src/runtime/history/index.js';
import { UnknownNodeError } from '../../../src/runtime/store/index.js';
import type { RunEvent, Turn } from '../../../src/entries/runtime.js';
import { call, record, say, scriptedModel, tempDir } from './helpers.js';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.remove();
});

const text = (turn: Turn) => turn.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)).join('|');
const clock = { name: 'clock.now', description: 'Now.', inputSchema: { type: 'object' }, execute: () => '12:00' };

describe('agent.condense()', () => {
  it('condenses now, records the summary in the session and bills it, so a resumed agent sees the condensed context', async () => {
    const store = new SessionStore(dir.path);
    const model = scriptedModel(say('a1'), say('a2'), say('a3'), say('Summary: three questions, three answers.'), say('a4'));
    const agent = createAgent({ model: 'm', sessionId: 's', compaction: { keepRecent: 2 } }, { store, invokeModel: model.invoke });
    // The turns to drop are long enough for the summary to make the context smaller (else nothing is condensed).
    for (const prompt of [`q1 ${'words '.repeat(100)}`, `q2 ${'words '.repeat(100)}`, 'q3']) await agent.submit(prompt);
    const events = record(agent);

    const outcome = await agent.condense();

    expect(outcome.compacted).toMatchObject({ kind: 'compacted', removed: 4, summary: 'Summary: three questions, three answers.' });
    expect(outcome.snapshot.messages.map(text)).toEqual([
      `${COMPACTION_PREFIX}\nSummary: three questions, three answers.|${HISTORY_NOTE}`,
      'q3',
      'a3',
    ]);
    expect(outcome.compacted?.dropped).toHaveLength(4);
    expect(outcome.snapshot.usage.outputTokens).toBe(5);
    expect(events.map((e) => e.kind)).toEqual(['run_started', 'usage', 'compacted', 'settled']);
    expect(model.requests[3].cacheable).toBe(false);
    // The next run sends the condensed context, not the one the model saw before.
    await agent.submit('q4');
    expect(model.requests[4].messages.map(text)).toEqual([...outcome.snapshot.messages.map(text), 'q4']);
    await agent.close();

    const again = createAgent({ model: 'm' }, { store, invokeModel: scriptedModel().invoke });
    expect((await again.resume('s')).messages.map(text)).toEqual([...outcome.snapshot.messages.map(text), 'q4', 'a4']);
    expect((await again.sessionUsage()).outputTokens).toBe(5 * 5);
    await again.close();
  });

  it('works without compaction configured and without a store, and does nothing when nothing can be dropped', async () => {
    const model = scriptedModel(say('a1'), say('Summary.'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });
    await agent.submit('q1');
    const nothing = await agent.condense();
    expect(nothing.compacted).toBeNull();
    expect(nothing.snapshot.messages).toHaveLength(2);
    expect(model.requests).toHaveLength(1);
  });

  it('faults summarizer_failed and changes nothing when the summary call fails', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(say('a1'), say('a2'), () => {
      throw new Error('overloaded');
    });
    const agent = createAgent({ model: 'm', sessionId: 's', compaction: { keepRecent: 2 } }, { store, invokeModel: model.invoke });
    await agent.submit('q1');
    await agent.submit('q2');
    const events = record(agent);

    const failure = (await agent.condense().catch((e: unknown) => e)) as RunFault;

    expect(RunFault.isInstance(failure)).toBe(true);
    expect(failure.kind).toBe('summarizer_failed');
    expect(failure.snapshot.messages.map(text)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(events.at(-1)?.kind).toBe('faulted');
    await agent.close();
    expect((await store.loadSession('s')).size).toBe(4);
  });
});

describe('agent.branchFrom()', () => {
  it('moves the live leaf so the next prompt starts a branch there; the later turns stay in the session', async () => {
    const store = new SessionStore(dir.path);
    const model = scriptedModel(say('Paris.'), say('Berlin.'), say('Rome.'));
    const agent = createAgent({ model: 'm', sessionId: 's' }, { store, invokeModel: model.invoke });
    await agent.submit('capital of France?');
    await agent.submit('and Germany?');
    const graph = await store.loadSession('s');
    const paris = graph.nodesTo(graph.leaf!)[1];

    const snapshot = await agent.branchFrom(paris.id);
    expect(snapshot.messages.map(text)).toEqual(['capital of France?', 'Paris.']);
    const after = await agent.submit('and Italy?');

    expect(after.messages.map(text)).toEqual(['capital of France?', 'Paris.', 'and Italy?', 'Rome.']);
    expect(model.requests[2].messages.map(text)).toEqual(['capital of France?', 'Paris.', 'and Italy?']);
    await agent.close();
    const stored = await store.loadSession('s');
    expect(stored.children(paris.id)).toHaveLength(2);
    expect(stored.tips()).toHaveLength(2);
  });

  it('branches before the first turn with null: the next prompt is a new root, kept beside the old one, also after a restart', async () => {
    const model = scriptedModel(say('Paris.'), say('Lisbon.'), say('Still Lisbon.'));
    const agent = createAgent({ model: 'm', sessionId: 's' }, { store: new SessionStore(dir.path), invokeModel: model.invoke });
    await agent.submit('capital of France?');

    const emptied = await agent.branchFrom(null);
    expect(emptied.messages).toEqual([]);
    const asked = await agent.submit('capital of Portugal?');
    expect(asked.messages.map(text)).toEqual(['capital of Portugal?', 'Lisbon.']);
    expect(model.requests[1].messages.map(text)).toEqual(['capital of Portugal?']);
    await agent.close();

    const stored = await new SessionStore(dir.path).loadSession('s');
    expect(stored.children(null).map((node) => text(node.turn))).toEqual(['capital of France?', 'capital of Portugal?']);
    const again = createAgent({ model: 'm' }, { store: new SessionStore(dir.path), invokeModel: model.invoke });
    expect((await again.resume('s')).messages.map(text)).toEqual(['capital of Portugal?', 'Lisbon.']);
    await again.close();
  });

  it('refuses a reply whose calls would have no result, an unknown node, and an agent without a store', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(call({ name: 'clock_now', id: 'c1' }), say('Noon.'), say('Still noon.'));
    const agent = createAgent({ model: 'm', sessionId: 's', tools: [clock] }, { store, invokeModel: model.invoke });
    await agent.submit('time?');
    const graph = await store.loadSession('s');
    const reply = graph.nodesTo(graph.leaf!)[1];
    expect(reply.turn.blocks[0].kind).toBe('tool_call');

    await expect(agent.branchFrom(reply.id)).rejects.toSatisfy(BranchPointError.isInstance);
    await expect(agent.branchFrom('0'.repeat(64))).rejects.toSatisfy(UnknownNodeError.isInstance);
    expect(agent.pendingApprovals()).toEqual([]);
    expect((await agent.submit('again?')).status).toBe('settled');

    const storeless = createAgent({ model: 'm' }, { invokeModel: scriptedModel(say('x')).invoke });
    await storeless.submit('hi');
    await expect(storeless.branchFrom(reply.id)).rejects.toThrow(/no session store/);
  });
});

describe('agent.continue()', () => {
  it('sends a context that ends with a prompt to the model without adding a new one', async () => {
    const model = scriptedModel(say('Hello there.'));
    const history: Turn[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'hello?' }] }];
    const agent = createConductor({ model: 'm' }, { invokeModel: model.invoke, messages: history });

    const snapshot = await agent.continue();

    expect(model.requests[0].messages.map(text)).toEqual(['hello?']);
    expect(snapshot.messages.map(text)).toEqual(['hello?', 'Hello there.']);
    expect(history).toHaveLength(1);
  });

  it('settles at once when the last turn is an answer, and waits again when calls still wait for a decision', async () => {
    const model = scriptedModel(say('Done.'), call({ name: 'files_delete', id: 'd1' }));
    const deleteTool = { ...clock, name: 'files.delete', needsApproval: true };
    const agent = createAgent({ model: 'm', tools: [deleteTool] }, { invokeModel: model.invoke });
    await agent.submit('do it');
    const events = record(agent);
    const settled = await agent.continue();
    expect(settled.status).toBe('settled');
    expect(events.map((e) => e.kind)).toEqual(['run_started', 'settled']);
    expect(model.requests).toHaveLength(1);

    expect((await agent.submit('delete it')).status).toBe('waiting');
    const waiting = await agent.continue();
    expect(waiting.status).toBe('waiting');
    expect(waiting.pendingApprovals.map((p) => p.callId)).toEqual(['d1']);
    expect(model.requests).toHaveLength(2);
  });

  it('refuses messages beside a store, or messages that are not turns, when the agent is created', () => {
    const invoke = scriptedModel().invoke;
    expect(() => createConductor({ model: 'm' }, { invokeModel: invoke, messages: [], store: new MemorySessionStore() })).toThrow(
      AgentConfigError,
    );
    expect(() => createConductor({ model: 'm' }, { invokeModel: invoke, messages: [{ role: 'system', blocks: [] } as never] })).toThrow(
      /messages\[0\]/,
    );
    expect(() => createConductor({ model: 'm' }, {} as never)).toThrow(/invokeModel/);
  });
});

describe('resume() over a damaged session file', () => {
  it('reports what the load left out on the snapshot and as a session_opened event, instead of dropping it', async () => {
    const store = new SessionStore(dir.path);
    const model = scriptedModel(say('a1'), say('a2'));
    const writer = createAgent({ model: 'm', sessionId: 's' }, { store, invokeModel: model.invoke });
    await writer.submit('q1');
    await writer.submit('q2');
    await writer.close();
    const file = join(dir.path, 's.jsonl');
    const lines = (await readFile(file, 'utf8')).split('\n');
    // Damage the last reply's node: the leaf falls back to the turn before it.
    const lastNode = lines.findLastIndex((line) => line.startsWith('{"type":"node"'));
    lines[lastNode] = lines[lastNode].slice(0, 20) + '#' + lines[lastNode].slice(21);
    await writeFile(file, lines.join('\n'));
    await appendFile(file, '{"type":"node","node":{"id":');

    const reader = createAgent({ model: 'm' }, { store, invokeModel: scriptedModel().invoke });
    const events: RunEvent[] = record(reader);
    const snapshot = await reader.resume('s');

    expect(snapshot.messages.map(text)).toEqual(['q1', 'a1', 'q2']);
    expect(snapshot.loadReport?.truncatedTail).toBe(true);
    expect(snapshot.loadReport?.skipped).toHaveLength(2);
    expect(snapshot.loadReport?.leafFallback).not.toBeNull();
    const opened = events.find((e) => e.kind === 'session_opened');
    expect(opened).toMatchObject({ kind: 'session_opened', sessionId: 's', report: snapshot.loadReport });
    await reader.close();
  });
});

describe('resume() of another session', () => {
  // Session B waits on an approval of a run asked without `output`; session A on one asked with it.
  const wipe = { name: 'disk.wipe', description: 'Wipes.', inputSchema: { type: 'object' }, needsApproval: true, execute: () => 'wiped' };
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

  it("leaves the last session's output request behind: deciding the other session's approval answers in text", async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(call({ name: 'disk_wipe', id: 'b-wipe' }), call({ name: 'disk_wipe', id: 'a-wipe' }), say('Wiped it.'));
    const first = createConductor({ model: 'm', tools: [wipe] }, { store, invokeModel: model.invoke });
    await first.resume('b');
    expect((await first.submit('wipe it')).status).toBe('waiting');
    await first.close();

    const agent = createConductor({ model: 'm', tools: [wipe] }, { store, invokeModel: model.invoke });
    await agent.resume('a');
    expect((await agent.submit('where?', { output: schema })).status).toBe('waiting');
    await agent.resume('b');
    const settled = await agent.approve('b-wipe');

    // B's run was never asked for JSON: its answer is its text, with no output judged and no repair asked.
    expect(settled).toMatchObject({ sessionId: 'b', status: 'settled', text: 'Wiped it.' });
    expect(settled.output).toBeUndefined();
    expect(settled.messages.map(text)).toEqual(['wipe it', 'tool_call', 'tool_result', 'Wiped it.']);
    expect(model.requests.at(-1)?.responseFormat).toBeUndefined();
    expect(model.remaining()).toBe(0);
    await agent.close();
  });

  it("keeps the output request when the same session is resumed: the approval's run still answers in JSON", async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(call({ name: 'disk_wipe', id: 'a-wipe' }), say('{"city":"Pune"}'));
    const agent = createConductor({ model: 'm', tools: [wipe] }, { store, invokeModel: model.invoke });
    await agent.resume('a');
    expect((await agent.submit('where?', { output: schema })).status).toBe('waiting');
    await agent.resume('a');
    expect(await agent.approve('a-wipe')).toMatchObject({ status: 'settled', output: { city: 'Pune' } });
    await agent.close();
  });
});
