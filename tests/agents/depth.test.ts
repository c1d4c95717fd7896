// An agent whose tools reach itself (a config listing its own agentTool) with a model that always
// delegates: the tree stops at its depth cap with an AgentDepthError, instead of nesting agents until
// memory runs out (36.11). The model is faked at the ModelInvoker seam; the store is the real one in memory.
import { describe, expect, it } from 'vitest';
import { createConductor, MemorySessionStore, RunFault } from '../../src/runtime/index.js';
import type { AgentConfig, ModelInvoker, ModelReply, ToolDefinition } from '../../src/runtime/index.js';
import { agentTool, AgentToolError, DEFAULT_AGENT_DEPTH } from '../../src/agents/index.js';
import { AgentDepthError } from '../../src/entries/errors.js';

const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
// Far past any cap: without one the tree would grow until this stops it, so the test ends either way.
const RUNAWAY = 60;

/** A model that answers every request by delegating again; it gives up only past RUNAWAY calls. */
function alwaysDelegates(): { invoker: ModelInvoker; calls: () => number } {
  let calls = 0;
  const invoker: ModelInvoker = async () => {
    calls += 1;
    if (calls > RUNAWAY) return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'runaway' }] }, stopReason: 'end_turn', usage };
    const reply: ModelReply = {
      turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: `c${calls}`, name: 'delegate', input: { prompt: 'again' } }] },
      stopReason: 'tool_use',
      usage,
    };
    return reply;
  };
  return { invoker, calls: () => calls };
}

function recursiveAgent(maxDepth?: number): AgentConfig {
  const tools: ToolDefinition[] = [];
  const config: AgentConfig = { model: 'm', system: 'worker', tools };
  tools.push(
    agentTool(config, { name: 'delegate', description: 'Hands the task to another worker.', ...(maxDepth !== undefined && { maxDepth }) }),
  );
  return config;
}

async function runAway(maxDepth?: number) {
  const { invoker, calls } = alwaysDelegates();
  const store = new MemorySessionStore();
  const top = createConductor({ ...recursiveAgent(maxDepth), sessionId: 'top' }, { invokeModel: invoker, store });
  const faults: string[] = [];
  top.subscribe((event) => {
    if (event.kind === 'faulted') faults.push(event.error.kind);
  });
  const error = await Promise.resolve(top.submit('Start.')).then(
    () => undefined,
    (e: unknown) => e,
  );
  await top.close();
  return { error, calls: calls(), sessions: store.sessionIds().length, faults };
}

describe('agentTool depth', () => {
  it('stops an agent that calls itself at the default depth cap, with an AgentDepthError up the whole tree', async () => {
    expect(DEFAULT_AGENT_DEPTH).toBe(8);
    const { error, calls, sessions, faults } = await runAway();
    expect(RunFault.isInstance(error), String(error)).toBe(true);
    const fault = error as RunFault;
    expect(fault.kind).toBe('depth_exceeded');
    expect(AgentDepthError.isInstance(fault.cause)).toBe(true);
    const cause = fault.cause as AgentDepthError;
    expect({ tool: cause.tool, depth: cause.depth, maxDepth: cause.maxDepth }).toEqual({ tool: 'delegate', depth: 9, maxDepth: 8 });
    expect(fault.message).toContain('maxDepth 8');
    // The top agent and eight below it each asked the model once; the ninth was never started.
    expect(calls).toBe(9);
    expect(sessions).toBe(9);
    expect(faults).toEqual(['depth_exceeded']);
  });

  it('takes a cap of its own, and refuses one that cannot work when the tool is made', async () => {
    const { error, calls } = await runAway(2);
    expect((error as RunFault).kind).toBe('depth_exceeded');
    expect(((error as RunFault).cause as AgentDepthError).depth).toBe(3);
    expect(calls).toBe(3);
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => agentTool({ model: 'm' }, { name: 'x', description: 'X.', maxDepth: bad })).toThrow(AgentToolError);
  });
});
