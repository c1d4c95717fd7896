import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../src/runtime/store/index.js';
import { sessionStoreContract } from './session-store-contract.js';

sessionStoreContract('MemorySessionStore', async () => ({ store: new MemorySessionStore(), close: async () => {} }));

describe('MemorySessionStore', () => {
  it('keeps its own copy of every stored turn: changing a turn you hold changes nothing stored', async () => {
    const store = new MemorySessionStore();
    const graph = await store.openSession('s');
    const turn = { role: 'user' as const, blocks: [{ kind: 'text' as const, text: 'original' }] };
    graph.append(turn, 1);
    await store.closeSession('s');
    const loaded = await store.loadSession('s');
    (loaded.node(loaded.leaf!)!.turn.blocks[0] as { text: string }).text = 'changed by a reader';
    turn.blocks[0].text = 'changed by the writer';
    const again = await store.loadSession('s');
    expect(again.node(again.leaf!)!.turn.blocks[0]).toEqual({ kind: 'text', text: 'original' });
    expect(store.sessionIds()).toEqual(['s']);
  });
});
