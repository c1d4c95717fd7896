// A running tool asks the person for input (ToolContext.ask, what an MCP server's elicitation becomes):
// the run publishes input_requested and waits, the app answers with agent.answer, and an abort or a
// headless run ends the wait with a typed error.
import { describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { InputUnavailableError, RunFault, UnknownInputRequestError } from '../../../src/entries/errors.js';
import type { RunEvent, ToolDefinition } from '../../../src/entries/runtime.js';
import type { InputAnswer } from '../../../src/entries/tools.js';
import { call, record, say, scriptedModel } from './helpers.js';

const answers: Array<InputAnswer | Error> = [];
const confirm: ToolDefinition = {
  name: 'order.place',
  description: 'Places an order after asking for the delivery address.',
  inputSchema: { type: 'object' },
  async execute(_input, ctx) {
    try {
      const answer = await ctx.ask!({
        message: 'Where should it go?',
        schema: { type: 'object', properties: { street: { type: 'string' } }, required: ['street'] },
        from: 'shop',
      });
      answers.push(answer);
      return answer.action === 'accept' ? `Shipping to ${String(answer.content.street)}.` : `Not placed (${answer.action}).`;
    } catch (error) {
      answers.push(error as Error);
      throw error;
    }
  },
};

describe('input requested by a running tool', () => {
  it('waits for agent.answer, refusing an answer that does not match, and gives the tool what the person said', async () => {
    const model = scriptedModel(call({ name: 'order_place', id: 'o1' }), say('Placed.'));
    const agent = createAgent({ model: 'm', tools: [confirm] }, { invokeModel: model.invoke });
    const events: RunEvent[] = [];
    agent.subscribe((event) => {
      events.push(event);
      if (event.kind !== 'input_requested') return;
      expect(() => agent.answer('nope', { action: 'decline' })).toThrow(UnknownInputRequestError);
      expect(() => agent.answer(event.requestId, { action: 'accept', content: { street: 7 } })).toThrow(/does not match/);
      agent.answer(event.requestId, { action: 'accept', content: { street: 'Baker Street 221b' } });
    });

    const run = agent.submit('Order it.');
    const snapshot = await run;

    expect(snapshot.text).toBe('Placed.');
    expect(events.find((e) => e.kind === 'input_requested')).toMatchObject({
      callId: 'o1',
      name: 'order.place',
      message: 'Where should it go?',
      from: 'shop',
      runId: run.runId,
    });
    expect(events.filter((e) => e.kind.startsWith('input_') || e.kind === 'tool_finished').map((e) => e.kind)).toEqual([
      'input_requested',
      'input_answered',
      'tool_finished',
    ]);
    expect(model.requests[1].messages.at(-1)!.blocks[0]).toMatchObject({ content: 'Shipping to Baker Street 221b.' });
  });

  it('is answered through a Run being read, too: reading the run is listening', async () => {
    const model = scriptedModel(call({ name: 'order_place', id: 'o1' }), say('Done.'));
    const agent = createAgent({ model: 'm', tools: [confirm] }, { invokeModel: model.invoke });
    const run = agent.submit('Order it.');
    for await (const event of run) if (event.kind === 'input_requested') agent.answer(event.requestId, { action: 'decline' });
    expect(model.requests[1].messages.at(-1)!.blocks[0]).toMatchObject({ content: 'Not placed (decline).' });
  });

  it('ends the wait when the run is aborted: the tool gets RunAbortedError and the run faults aborted', async () => {
    const model = scriptedModel(call({ name: 'order_place', id: 'o1' }), say('never'));
    const agent = createAgent({ model: 'm', tools: [confirm] }, { invokeModel: model.invoke });
    const events = record(agent);
    agent.subscribe((event) => {
      if (event.kind === 'input_requested') agent.abort();
    });

    const failure = (await agent.submit('Order it.').catch((e: unknown) => e)) as RunFault;

    expect(failure).toMatchObject({ kind: 'aborted' });
    expect(events.find((e) => e.kind === 'input_answered')).toMatchObject({ action: 'cancel' });
    expect(agent.pendingInputs()).toEqual([]);
  });

  it('is refused at once in a headless run: nothing listens, so nobody can answer', async () => {
    answers.length = 0;
    const model = scriptedModel(call({ name: 'order_place', id: 'o1' }), say('Could not ask.'));
    const agent = createAgent({ model: 'm', tools: [confirm] }, { invokeModel: model.invoke });

    await agent.submit('Order it.');

    expect(InputUnavailableError.isInstance(answers[0])).toBe(true);
  });
});
