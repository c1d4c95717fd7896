// `beforeToolRuns`: a host that stores events behind the run (the agent server) is asked to make a
// call's start durable before a tool that must not run twice runs; an idempotent tool starts at once,
// and a host that cannot store the start keeps the call from running.
import { describe, expect, it } from 'vitest';
import { createConductor } from '../../../src/runtime/index.js';
import type { ToolDefinition } from '../../../src/runtime/index.js';
import { call, deferred, say, scriptedModel } from './helpers.js';

function tools(log: string[]): ToolDefinition[] {
  return [
    {
      name: 'pay.send',
      description: 'Sends money; not safe to run twice.',
      inputSchema: { type: 'object' },
      execute: () => {
        log.push('pay ran');
        return 'paid';
      },
    },
    {
      name: 'clock.read',
      description: 'Reads the clock.',
      inputSchema: { type: 'object' },
      idempotent: true,
      execute: () => {
        log.push('clock ran');
        return 'noon';
      },
    },
  ];
}

describe('beforeToolRuns', () => {
  it('holds a non-idempotent call until the host has its start, and never holds an idempotent one', async () => {
    const log: string[] = [];
    const stored = deferred();
    const model = scriptedModel(call({ name: 'pay_send', id: 'p1' }), call({ name: 'clock_read', id: 'c1' }), say('done'));
    const agent = createConductor(
      { model: 'test', tools: tools(log) },
      {
        invokeModel: model.invoke,
        beforeToolRuns: async (started) => {
          log.push(`asked ${started.name} ${started.callId}`);
          await stored.promise;
          log.push('stored');
        },
      },
    );
    const run = agent.submit('Pay, then read the clock.');
    const seen: string[] = [];
    for await (const event of run) {
      if (event.kind === 'tool_started') seen.push(`started ${event.callId}`);
      // The call waits on the host: the start is out, the tool has not run.
      if (event.kind === 'tool_started' && event.callId === 'p1') {
        expect(log).toEqual(['asked pay.send p1']);
        stored.resolve();
      }
    }
    expect((await run).text).toBe('done');
    expect(log).toEqual(['asked pay.send p1', 'stored', 'pay ran', 'clock ran']);
    expect(seen).toEqual(['started p1', 'started c1']);
  });

  it('keeps the call from running when the host cannot store its start, and the run faults', async () => {
    const log: string[] = [];
    const model = scriptedModel(call({ name: 'pay_send', id: 'p1' }), say('unreachable'));
    const agent = createConductor(
      { model: 'test', tools: tools(log) },
      {
        invokeModel: model.invoke,
        beforeToolRuns: () => Promise.reject(new Error('the event log is down')),
      },
    );
    await expect(agent.submit('Pay.')).rejects.toMatchObject({ name: 'RunFault' });
    expect(log).toEqual([]);
  });
});
