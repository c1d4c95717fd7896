// What a takeover adds to a run's bill: the usage on the session nodes the run's earlier attempts
// settled, found above the node whose context has the run's base mark, a condensation included.
import { describe, expect, it } from 'vitest';
import { createConductor } from '../../../src/runtime/index.js';
import { MemorySessionStore } from '../../../src/runtime/store/index.js';
import { contextMark } from '../../../src/server/runs/context-mark.js';
import { earlierAttemptsUsage } from '../../../src/server/runs/earlier-usage.js';
import { call, say, scriptedModel, usage } from '../../runtime/agent/helpers.js';

const tools = [{ name: 'note.add', description: 'Adds a note.', inputSchema: { type: 'object' }, execute: () => 'added' }];

describe('earlierAttemptsUsage', () => {
  it('sums the nodes the run added since its base mark, a summary included, and nothing from before', async () => {
    const store = new MemorySessionStore();
    const model = scriptedModel(
      say('first', usage(100, 1)),
      { ...call({ name: 'note_add', id: 'n1' }), usage: usage(7, 1) },
      say('noted', usage(11, 1)),
      say('summary of it all', usage(13, 1)),
    );
    const agent = createConductor(
      { model: 'test', tools, sessionId: 't', compaction: { keepRecent: 1 } },
      { invokeModel: model.invoke, store },
    );
    const before = await agent.submit('an earlier run');
    const base = contextMark(before.messages);
    // The run's attempt: a tool step and an answer, then a condensation, all settled in the session.
    await agent.submit(`note it: ${'a long note '.repeat(400)}`);
    expect((await agent.condense()).compacted).not.toBeNull();
    expect(await earlierAttemptsUsage(store, 't', base)).toEqual(usage(7 + 11 + 13, 3));
    // A run that started on an empty thread was billed every node of the path.
    expect(await earlierAttemptsUsage(store, 't', { length: 0, last: null })).toEqual(usage(100 + 7 + 11 + 13, 4));
    // A mark no node of the path has: the caller hears that it cannot tell.
    expect(await earlierAttemptsUsage(store, 't', { length: 2, last: 'no-such-turn' })).toBeUndefined();
    await agent.close();
  });
});
