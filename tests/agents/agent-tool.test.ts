// agentTool's own rules, with models at the ModelInvoker seam: an Agent as the sub-agent (its calls
// take turns), an input schema of your own, a call that must be approved before its sub-agent starts,
// an abort reaching the sub-agent, a session that holds another task, and options that cannot work.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createConductor, MemorySessionStore, RunFault } from '../../src/runtime/index.js';
import type { ModelInvoker, ModelReply, ModelRequest, RunEvent, ToolDefinition } from '../../src/runtime/index.js';
import { agentTool, AgentToolError, childSessionId } from '../../src/agents/index.js';
import { ToolError } from '../../src/entries/errors.js';

const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
const text = (t: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: t }] },
  stopReason: 'end_turn',
  usage,
});
const calls = (...list: Array<{ id: string; name: string; input: unknown }>): ModelReply => ({
  turn: { role: 'assistant', blocks: list.map((c) => ({ kind: 'tool_call' as const, ...c })) },
  stopReason: 'tool_use',
  usage,
});
const answered = (request: ModelRequest) => request.messages.at(-1)!.blocks.some((b) => b.kind === 'tool_result');
const promptOf = (request: ModelRequest) => request.messages[0].blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('');

/** The lead calls `tool` with each input at once, then answers with what came back; any other agent echoes its prompt. */
function leadModel(tool: string, inputs: unknown[], seen: ModelRequest[] = []): ModelInvoker {
  return async (request) => {
    seen.push(request);
    if (request.system !== 'lead') return text(`done: ${promptOf(request)}`);
    if (answered(request)) return text('lead done');
    return calls(...inputs.map((input, i) => ({ id: `call${i}`, name: tool, input })));
  };
}

describe('agentTool', () => {
  it('takes an Agent: its calls take turns on it, each in a session of its own, with its own model', async () => {
    const seen: ModelRequest[] = [];
    let running = 0;
    let most = 0;
    const childModel: ModelInvoker = async (request) => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setImmediate(resolve));
      running--;
      seen.push(request);
      return text(`researched ${promptOf(request)}`);
    };
    const store = new MemorySessionStore();
    const researcher = createConductor({ model: 'child', system: 'researcher' }, { invokeModel: childModel, store });
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [agentTool(researcher, { name: 'research', description: 'R.' })], sessionId: 'lead' },
      { invokeModel: leadModel('research', [{ prompt: 'a' }, { prompt: 'b' }]), store: new MemorySessionStore() },
    );
    const done = await lead.submit('Go.');
    expect(done.status).toBe('settled');
    expect(most).toBe(1);
    expect(seen.map(promptOf)).toEqual(['a', 'b']);
    for (const id of ['call0', 'call1']) expect(store.sessionIds()).toContain(childSessionId('lead', id));
    await lead.close();
    await researcher.close();
  });

  it("streams the sub-agent's step snapshots to whoever reads the calling run, and builds none nobody watches", async () => {
    const lead = () =>
      createConductor(
        { model: 'm', system: 'lead', tools: [agentTool({ model: 'child', system: 'child' }, { name: 'research', description: 'R.' })] },
        { invokeModel: leadModel('research', [{ prompt: 'a' }]), store: new MemorySessionStore() },
      );
    const nestedSnapshots = (events: RunEvent[]) =>
      events.filter((e) => e.kind === 'nested' && e.event.kind === 'snapshot' && e.event.snapshot.text === 'done: a');
    const read = lead();
    const events: RunEvent[] = [];
    for await (const event of read.submit('Go.')) events.push(event);
    expect(nestedSnapshots(events)).toHaveLength(1);
    await read.close();

    // Nobody reads the run while it runs, nobody subscribes: its log, read after the end, holds no snapshot of the sub-agent's.
    const unwatched = lead();
    const run = unwatched.submit('Go.');
    expect((await run).status).toBe('settled');
    const late: RunEvent[] = [];
    for await (const event of run) late.push(event);
    expect(late.some((e) => e.kind === 'nested' && e.event.kind === 'run_started')).toBe(true);
    expect(nestedSnapshots(late)).toHaveLength(0);
    await unwatched.close();
  });

  it('takes an input schema of its own and a prompt made from the checked input', async () => {
    const seen: ModelRequest[] = [];
    const tool = agentTool(
      { model: 'm', system: 'translator' },
      {
        name: 'translate',
        description: 'T.',
        input: z.object({ text: z.string(), to: z.enum(['fr', 'de']) }),
        prompt: (input: { text: string; to: string }) => `Translate "${input.text}" to ${input.to}.`,
      },
    );
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [tool] },
      {
        invokeModel: leadModel(
          'translate',
          [
            { text: 'hello', to: 'fr' },
            { text: 'hi', to: 'xx' },
          ],
          seen,
        ),
      },
    );
    const done = await lead.submit('Go.');
    const results = done.messages[2].blocks;
    expect(results[0]).toMatchObject({
      kind: 'tool_result',
      content: JSON.stringify({ sessionId: `${done.sessionId}.call0`, answer: 'done: Translate "hello" to fr.' }),
    });
    // Input the schema refuses never reaches a sub-agent.
    expect(results[1]).toMatchObject({ isError: true, content: expect.stringMatching(/^Invalid input for tool "translate"/) });
    expect(seen.filter((r) => r.system === 'translator')).toHaveLength(1);
  });

  it('with needsApproval, waits before its sub-agent starts, then runs it once approved', async () => {
    const seen: ModelRequest[] = [];
    const tool = agentTool({ model: 'm', system: 'spender' }, { name: 'spend', description: 'S.', needsApproval: true });
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [tool] },
      { invokeModel: leadModel('spend', [{ prompt: 'buy' }], seen) },
    );
    const waiting = await lead.submit('Go.');
    expect(waiting.pendingApprovals).toEqual([{ approvalId: 'call0', callId: 'call0', name: 'spend', input: { prompt: 'buy' } }]);
    expect(seen.filter((r) => r.system === 'spender')).toHaveLength(0);
    const done = await lead.approve('call0');
    expect(done.status).toBe('settled');
    expect(seen.filter((r) => r.system === 'spender')).toHaveLength(1);
  });

  it("aborting the calling run aborts the sub-agent's, and the call is answered as aborted", async () => {
    let started!: () => void;
    const inside = new Promise<void>((resolve) => (started = resolve));
    const hang: ToolDefinition = {
      name: 'hang',
      description: 'Hangs until aborted.',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener('abort', () => reject(new ToolError('stopped')));
        }),
    };
    const childModel: ModelInvoker = async (request) => (answered(request) ? text('never') : calls({ id: 'h', name: 'hang', input: {} }));
    const tool = agentTool({ model: 'm', system: 'worker', tools: [hang] }, { name: 'work', description: 'W.', invokeModel: childModel });
    const store = new MemorySessionStore();
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [tool], sessionId: 'lead' },
      { invokeModel: leadModel('work', [{ prompt: 'go' }]), store },
    );
    const run = lead.submit('Go.');
    await inside;
    lead.abort();
    const fault = (await run.then(
      () => undefined,
      (error: unknown) => error,
    )) as RunFault;
    expect(fault.kind).toBe('aborted');
    expect(fault.snapshot.messages.at(-1)!.blocks[0]).toMatchObject({
      callId: 'call0',
      isError: true,
      content: expect.stringMatching(/^Aborted/),
    });
    await lead.close();
  });

  it('refuses to resume a session that holds another task, and runs only as an agent tool', async () => {
    const store = new MemorySessionStore();
    // Another task already sits in the session this call would run in.
    const squatter = createConductor(
      { model: 'm', sessionId: childSessionId('lead', 'call0') },
      { invokeModel: async () => text('mine'), store },
    );
    await squatter.submit('Something else entirely.');
    await squatter.close();
    const tool = agentTool({ model: 'm', system: 'worker' }, { name: 'work', description: 'W.' });
    const lead = createConductor(
      { model: 'm', system: 'lead', tools: [tool], sessionId: 'lead' },
      { invokeModel: leadModel('work', [{ prompt: 'go' }]), store },
    );
    const done = await lead.submit('Go.');
    expect(done.messages[2].blocks[0]).toMatchObject({
      isError: true,
      content: `Session lead.call0 already holds another task of the work agent; it was not touched.`,
    });
    expect((await store.loadSession('lead.call0')).pathTo((await store.loadSession('lead.call0')).leaf!)).toHaveLength(2);
    await lead.close();

    await expect(tool.execute({ prompt: 'go' }, { signal: new AbortController().signal, callId: 'x' })).rejects.toThrow(
      /runs only as a tool of an agent/,
    );
  });

  it('refuses options that cannot work when the tool is made', () => {
    const config = { model: 'm' };
    expect(() => agentTool(config, { name: '', description: 'D.' })).toThrow(AgentToolError);
    expect(() => agentTool(config, { name: 'a', description: ' ' })).toThrow(/description/);
    expect(() => agentTool(config, { name: 'a', description: 'D.', concurrency: 0 })).toThrow(/concurrency/);
    expect(() => agentTool({ model: '' }, { name: 'a', description: 'D.' })).toThrow(/model/);
    expect(() => agentTool(null as never, { name: 'a', description: 'D.' })).toThrow(AgentToolError);
  });
});
