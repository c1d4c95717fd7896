// The offline demo model in process, through a whole conductor: what `INDUSAGI_MODEL=demo` gives.
import { describe, expect, it } from 'vitest';
import { demoModel } from '../../../src/providers/anthropic/demo-model.js';
import { createConductor } from '../../../src/runtime/agent/index.js';
import { MemorySessionStore } from '../../../src/runtime/store/index.js';

describe('demoModel', () => {
  it('answers a prompt sent after a stopped run as itself, not the stopped prompt merged before it', async () => {
    const agent = createConductor({ model: demoModel() }, { store: new MemorySessionStore() });
    const stop = new AbortController();
    const off = agent.subscribe((event) => {
      if (event.kind === 'text_delta') stop.abort();
    });
    await expect(agent.submit('tell me a long story', { signal: stop.signal })).rejects.toMatchObject({ kind: 'aborted' });
    off();
    const next = await agent.submit('help');
    // The stopped prompt is still in the context, unanswered, right before the new one.
    expect(next.messages.filter((turn) => turn.role === 'user')).toHaveLength(2);
    expect(next.text).toContain('Phrases I act on');
    expect(next.text).not.toContain('long answer');
    await agent.close();
  });
});
