import { describe, expect, it, vi } from 'vitest';
import type { FastCheck } from '../../../src/schema/codegen-validator.js';

// Every value the compiled (Ajv) validator is asked about. This file's module graph is its own, so the
// validator has not loaded when the test starts, as in a fresh process.
const fastChecked = vi.hoisted(() => [] as unknown[]);
vi.mock('../../../src/schema/codegen-validator.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src/schema/codegen-validator.js')>();
  return {
    ...actual,
    compileFast: (...args: Parameters<typeof actual.compileFast>): FastCheck | null => {
      const fast = actual.compileFast(...args);
      return fast && ((value) => (fastChecked.push(value), fast(value)));
    },
  };
});

const { createAgent } = await import('../../../src/entries/runtime.js');
const { call, say, scriptedModel } = await import('../agent/helpers.js');

describe('a tool input check', () => {
  it('uses the compiled validator from the first tool call of a run, even with a model that answers at once', async () => {
    const model = scriptedModel(
      call({ name: 'bump', input: { n: 1 }, id: 'c1' }),
      call({ name: 'bump', input: { n: 2 }, id: 'c2' }),
      say('done'),
    );
    const agent = createAgent(
      {
        model: 'claude-sonnet-4-5',
        tools: [
          {
            name: 'bump',
            description: 'Adds one.',
            inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
            execute: (input: { n: number }) => input.n + 1,
          },
        ],
      },
      { invokeModel: model.invoke },
    );

    const snapshot = await agent.submit('count');

    expect(snapshot.status).toBe('settled');
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'user', blocks: [{ kind: 'tool_result', callId: 'c1', content: '2' }] });
    expect(fastChecked).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('still refuses bad input on the first call, with every problem named', async () => {
    const model = scriptedModel(call({ name: 'bump', input: { n: 'one' }, id: 'c1' }), say('sorry'));
    const agent = createAgent(
      {
        model: 'claude-sonnet-4-5',
        tools: [
          {
            name: 'bump',
            description: 'Adds one.',
            inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
            execute: (input: { n: number }) => input.n + 1,
          },
        ],
      },
      { invokeModel: model.invoke },
    );

    await agent.submit('count');

    const result = model.requests[1].messages.at(-1)!.blocks[0];
    expect(result).toMatchObject({ kind: 'tool_result', callId: 'c1', isError: true });
    expect(JSON.stringify(result)).toContain('Invalid input for tool \\"bump\\"');
  });
});
