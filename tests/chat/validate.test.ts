import { describe, expect, it } from 'vitest';
import { InvalidPartError, assertAgentPart } from '../../src/parts/index.js';

// Parts reach the store from the network; these are the shapes a renderer switches on.
describe('assertAgentPart', () => {
  it.each([
    { type: 'text', text: '' },
    { type: 'tool', name: 'notes.list', callId: 'c1', input: {}, result: undefined },
    { type: 'tool', name: 'notes.delete', callId: 'c2', input: {}, result: null, isError: true, approvalId: 'c2' },
    { type: 'memory', op: 'recalled', records: [] },
    { type: 'context', source: 'tools', op: 'loaded', tools: ['notes.list'] },
    { type: 'context', source: 'memory', op: 'saved', records: [] },
    { type: 'context', source: 'memory', op: 'skipped', records: [], tokens: 900 },
    { type: 'guardrail', trip: { guardrail: 'deny', stage: 'tool_call', message: 'no', callId: 'c1', toolName: 'x', runId: 'r', at: 1 } },
  ])('accepts %j', (part) => {
    expect(() => assertAgentPart(part)).not.toThrow();
  });

  it.each([
    [null, /must be an object/],
    ['text', /must be an object/],
    [{ type: 'text', text: 3 }, /string "text"/],
    [{ type: 'tool', callId: 'c1' }, /string "name"/],
    [{ type: 'tool', name: 'x', callId: 'c1', isError: 'yes' }, /isError/],
    [{ type: 'tool', name: 'x', callId: 'c1', approvalId: 7 }, /approvalId/],
    [{ type: 'memory', op: 'forgot', records: [] }, /"op"/],
    [{ type: 'memory', op: 'saved' }, /records/],
    [{ type: 'context', source: 'tools', op: 'loaded', tools: [1] }, /array of strings/],
    [{ type: 'context', op: 'loaded' }, /source/],
    [{ type: 'context', source: 'memory', op: 'skipped', tokens: 'many' }, /tokens/],
    [{ type: 'guardrail' }, /"trip" object/],
    [{ type: 'guardrail', trip: { guardrail: 'deny', stage: 'input' } }, /string "guardrail" and "message"/],
    [{ type: 'guardrail', trip: { guardrail: 'deny', stage: 'later', message: 'no' } }, /"trip.stage"/],
    [{ type: 'image', url: 'x' }, /unknown part type "image"/],
  ])('refuses %j with InvalidPartError', (part, message) => {
    let caught: unknown;
    try {
      assertAgentPart(part);
    } catch (error) {
      caught = error;
    }
    expect(InvalidPartError.isInstance(caught)).toBe(true);
    expect((caught as Error).message).toMatch(message);
  });
});
