// A tool reports how far it has got through `ctx.progress`; subscribers get each report as a
// `tool_progress` event between the call's `tool_started` and `tool_finished`, and a report made after
// the call was answered is dropped rather than published after its end.
import { describe, expect, it } from 'vitest';
import { createConductor } from '../../../src/runtime/index.js';
import type { ModelInvoker, RunEvent, ToolDefinition } from '../../../src/runtime/index.js';

describe('tool progress', () => {
  it('reaches subscribers in order, inside the call, with only the fields a report has', async () => {
    let late: (() => void) | undefined;
    const tool: ToolDefinition = {
      name: 'index.build',
      description: 'Builds the index.',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) => {
        ctx.progress?.({ progress: 1, total: 3 });
        ctx.progress?.({ progress: 2, total: 3, message: 'halfway', extra: 'not an event field' } as never);
        late = () => ctx.progress?.({ progress: 3, total: 3 });
        return 'built';
      },
    };
    let step = 0;
    const invokeModel: ModelInvoker = async () =>
      ++step === 1
        ? { turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'b1', name: 'index_build', input: {} }] }, stopReason: 'tool_use' }
        : { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Built.' }] }, stopReason: 'end_turn' };
    const agent = createConductor({ model: 'test', tools: [tool] }, { invokeModel });
    const events: RunEvent[] = [];
    agent.subscribe((event) => events.push(event));
    const run = agent.submit('Build it.');
    await run;
    late!();
    const runId = run.runId;

    const calls = events.filter((e) => e.kind.startsWith('tool_'));
    expect(calls).toEqual([
      { kind: 'tool_started', name: 'index.build', callId: 'b1', input: {}, runId },
      { kind: 'tool_progress', name: 'index.build', callId: 'b1', progress: 1, total: 3, runId },
      { kind: 'tool_progress', name: 'index.build', callId: 'b1', progress: 2, total: 3, message: 'halfway', runId },
      { kind: 'tool_finished', name: 'index.build', callId: 'b1', input: {}, result: 'built', isError: false, runId },
    ]);
  });
});
