// A tripped run is durable on PostgreSQL: a fresh store object (as another machine would have) resumes
// the session knowing its last run tripped, whether it reads the session whole or its live path only.
import { afterAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { RunFault } from '../../src/entries/errors.js';
import { maxPromptSize } from '../../src/runtime/guardrails/index.js';
import type { ModelInvoker } from '../../src/entries/runtime.js';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const answering: ModelInvoker = async (request) => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: `answer ${request.messages.length}` }] },
  stopReason: 'end_turn',
});

describe.skipIf(postgresUrl === undefined)('guardrail trips on PostgreSQL', () => {
  const pool = testPool({ max: 4 });
  const stores: PostgresSessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const make = (schema: string, livePathAbove?: number) => {
    const store = new PostgresSessionStore({ pool }, { schema, livePathAbove });
    stores.push(store);
    return store;
  };

  it('survive a restart: a fresh store resumes the trip, whole or from the live path, and the next run clears it', async () => {
    const schema = freshSchema('trip');
    const first = make(schema);
    await first.migrate();
    const agent = createAgent(
      { model: 'm', sessionId: 's', inputGuardrails: [maxPromptSize({ maxChars: 20 })] },
      { store: first, invokeModel: answering },
    );
    await agent.submit('hello');
    const fault = await agent.submit('a prompt that is far too long').then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!RunFault.isInstance(fault)) throw new Error('expected the run to trip');
    await agent.close();
    const trip = fault.snapshot.tripped!;
    expect(trip).toMatchObject({ guardrail: 'max_prompt_size', stage: 'input' });

    for (const livePathAbove of [undefined, 0]) {
      const resumed = createAgent({ model: 'm' }, { store: make(schema, livePathAbove), invokeModel: answering });
      expect(await resumed.resume('s'), `livePathAbove ${livePathAbove}`).toMatchObject({
        status: 'settled',
        text: 'answer 1',
        tripped: trip,
        messages: fault.snapshot.messages,
      });
      await resumed.close();
    }

    const next = createAgent({ model: 'm', sessionId: 's' }, { store: make(schema), invokeModel: answering });
    expect(await next.submit('short one')).toMatchObject({ status: 'settled', text: 'answer 3' });
    await next.close();
    for (const livePathAbove of [undefined, 0]) {
      const later = createAgent({ model: 'm' }, { store: make(schema, livePathAbove), invokeModel: answering });
      expect((await later.resume('s')).tripped).toBeUndefined();
      await later.close();
    }
  });
});
