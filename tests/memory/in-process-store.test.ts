import { describe, expect, it } from 'vitest';
import { createMemoryStore, MemoryInputError } from '../../src/memory/index.js';
import type { MemoryRecord } from '../../src/memory/index.js';
import { memoryStoreContract } from './store-contract.js';
import { workingMemoryContract } from './working-contract.js';

memoryStoreContract('createMemoryStore', async () => {
  const store = createMemoryStore();
  return Object.assign(store, { all: store.all! });
});

// One process, one store: the peer is the store itself.
workingMemoryContract('createMemoryStore', async () => {
  const store = createMemoryStore();
  return { store, peer: store };
});

describe('createMemoryStore seed', () => {
  const seed: MemoryRecord[] = [
    { id: 'r1', text: 'Lives in Lisbon', kind: 'fact', createdAt: 1000, score: 9 },
    { id: 'r2', text: 'Prefers window seats', createdAt: 2000, meta: { from: 'import' } },
  ];

  it('preloads seed records with their ids and createdAt, searchable and forgettable', async () => {
    const store = createMemoryStore(seed);
    const [hit] = await store.search('lisbon');
    expect(hit).toMatchObject({ id: 'r1', text: 'Lives in Lisbon', kind: 'fact', createdAt: 1000 });
    expect(hit.score).not.toBe(9);
    expect((await store.all!()).map((r) => r.id)).toEqual(['r1', 'r2']);
    expect((await store.all!())[0].score).toBeUndefined();
    expect(await store.forget('r2')).toBe(true);
    expect(await store.search('window seats')).toEqual([]);
  });

  it('rejects a malformed seed whole, with the offending index', () => {
    const cases: unknown[] = [
      'not an array',
      [
        { id: 'a', text: 'x', createdAt: 1 },
        { id: 'a', text: 'y', createdAt: 2 },
      ],
      [{ id: '', text: 'x', createdAt: 1 }],
      [{ id: 'a', text: 3, createdAt: 1 }],
      [{ id: 'a', text: 'x', createdAt: Number.NaN }],
      [{ id: 'a', text: 'x', createdAt: 1, kind: 1 }],
      [null],
    ];
    for (const bad of cases) {
      expect(() => createMemoryStore(bad as MemoryRecord[])).toThrow(MemoryInputError);
    }
    expect(() =>
      createMemoryStore([
        { id: 'ok', text: 'x', createdAt: 1 },
        { id: 'ok', text: 'y', createdAt: 2 },
      ]),
    ).toThrow(/seed\[1\]\.id "ok" appears twice/);
  });

  it('does not share the seed objects: editing the seed afterwards changes nothing stored', async () => {
    const local: MemoryRecord[] = [{ id: 's', text: 'blue door', createdAt: 1, meta: { n: 1 } }];
    const store = createMemoryStore(local);
    local[0].text = 'red door';
    local[0].meta!.n = 2;
    expect(await store.search('blue')).toMatchObject([{ id: 's', text: 'blue door', meta: { n: 1 } }]);
  });
});
