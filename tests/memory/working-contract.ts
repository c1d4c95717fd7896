// Working memory every store must keep alike: one block per exact scope, versions that only grow, a
// write at a stale version refused (exactly one of two racing writers wins), and JSON content handed
// back as written. Run by each store's test file.
import { describe, expect, it } from 'vitest';
import { MAX_WORKING_LENGTH, MemoryInputError, WorkingMemoryConflictError } from '../../src/memory/index.js';
import type { WorkingMemoryStore } from '../../src/memory/index.js';

/**
 * `store` and `peer` reach the same blocks: for a durable store, two handles (connections) on the same
 * file or schema, so a race between them is a race between processes; in process, the same store.
 */
export type WorkingFactory = () => Promise<{ store: WorkingMemoryStore; peer: WorkingMemoryStore }>;

export type WorkingContractOptions = {
  /** Two stores on the same data under different tenants, for a store that has tenants. */
  tenants?: () => Promise<[WorkingMemoryStore, WorkingMemoryStore]>;
};

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

export function workingMemoryContract(name: string, open: WorkingFactory, options: WorkingContractOptions = {}): void {
  describe(`${name}: working memory`, () => {
    it('starts empty, takes a first write at version 0 and each later one at the version it read', async () => {
      const { store, peer } = await open();
      const ana = { resource: 'ana' };
      expect(await store.getWorking(ana)).toBeUndefined();
      const first = await store.setWorking(ana, { name: 'Ana', units: 'metric' }, { expectedVersion: 0 });
      expect(first).toEqual({ content: { name: 'Ana', units: 'metric' }, version: 1 });
      expect(await peer.getWorking(ana)).toEqual(first);
      const second = await peer.setWorking(ana, { name: 'Ana', units: 'imperial', city: 'Lyon' }, { expectedVersion: 1 });
      expect(second.version).toBe(2);
      expect(await store.getWorking(ana)).toEqual({ content: { name: 'Ana', units: 'imperial', city: 'Lyon' }, version: 2 });
      // What a caller gets is its own copy: changing it changes nothing stored.
      const read = (await store.getWorking(ana))!;
      (read.content as { city: string }).city = 'Paris';
      expect(((await store.getWorking(ana))!.content as { city: string }).city).toBe('Lyon');
    });

    it('refuses a write at a stale version with WorkingMemoryConflictError naming the current one, and changes nothing', async () => {
      const { store } = await open();
      const scope = { resource: 'ana', session: 'thread-1' };
      await store.setWorking(scope, { step: 1 }, { expectedVersion: 0 });
      await store.setWorking(scope, { step: 2 }, { expectedVersion: 1 });
      for (const expectedVersion of [1, 0, 3]) {
        const error = await rejection(store.setWorking(scope, { step: 'stale' }, { expectedVersion }));
        expect(WorkingMemoryConflictError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ kind: 'working_memory_conflict', expectedVersion, currentVersion: 2 });
      }
      expect(await store.getWorking(scope)).toEqual({ content: { step: 2 }, version: 2 });
      // No block: only version 0 may write, and the error says there is none.
      const error = await rejection(store.setWorking({ resource: 'nobody' }, 'x', { expectedVersion: 1 }));
      expect(error).toMatchObject({ kind: 'working_memory_conflict', expectedVersion: 1, currentVersion: 0 });
      expect(await store.getWorking({ resource: 'nobody' })).toBeUndefined();
    });

    it('lets exactly one of writers racing at the same version win; every other gets the conflict', async () => {
      const { store, peer } = await open();
      const scope = { resource: 'race' };
      // Creating the block races too: only one first write.
      const created = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => (i % 2 ? peer : store).setWorking(scope, { by: `creator-${i}` }, { expectedVersion: 0 })),
      );
      expect(created.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (let round = 1; round <= 5; round++) {
        const settled = await Promise.allSettled([
          store.setWorking(scope, { by: 'store', round }, { expectedVersion: round }),
          peer.setWorking(scope, { by: 'peer', round }, { expectedVersion: round }),
        ]);
        const won = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
        const lost = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
        expect(won).toHaveLength(1);
        expect(won[0].version).toBe(round + 1);
        expect(lost).toHaveLength(1);
        expect(WorkingMemoryConflictError.isInstance(lost[0])).toBe(true);
        expect(lost[0]).toMatchObject({ expectedVersion: round, currentVersion: round + 1 });
        // The winner's content is what is stored: the loser wrote nothing.
        expect(await peer.getWorking(scope)).toEqual(won[0]);
      }
    });

    it('keeps one block per exact scope: a user, another user, a thread, the shared block never see each other', async () => {
      const { store, peer } = await open();
      const scopes = [{}, { resource: 'ana' }, { resource: 'ana', session: 't1' }, { session: 't1' }, { resource: 'bo' }];
      for (const [i, scope] of scopes.entries()) await store.setWorking(scope, { owner: i }, { expectedVersion: 0 });
      for (const [i, scope] of scopes.entries()) expect(await peer.getWorking(scope)).toEqual({ content: { owner: i }, version: 1 });
      // Probing a scope that was never written gets nothing, whatever its neighbours hold.
      for (const probe of [{ resource: 'ana', session: 't2' }, { resource: 'carl' }, { resource: 'bo', session: 't1' }])
        expect(await peer.getWorking(probe)).toBeUndefined();
      // A write, a stale write and a forget in one scope leave every other alone.
      await peer.setWorking({ resource: 'ana' }, { owner: 'rewritten' }, { expectedVersion: 1 });
      expect(await rejection(peer.setWorking({ resource: 'bo' }, 'x', { expectedVersion: 2 }))).toMatchObject({ currentVersion: 1 });
      expect(await peer.forgetWorking({ resource: 'ana', session: 't1' })).toBe(true);
      expect(await store.getWorking({ resource: 'ana' })).toEqual({ content: { owner: 'rewritten' }, version: 2 });
      expect(await store.getWorking({ resource: 'ana', session: 't1' })).toBeUndefined();
      for (const i of [0, 3, 4]) expect(await store.getWorking(scopes[i])).toEqual({ content: { owner: i }, version: 1 });
    });

    it('forgets a block; the next write expects version 0 and gets a version never handed out before', async () => {
      const { store, peer } = await open();
      const scope = { resource: 'ana' };
      expect(await store.forgetWorking(scope)).toBe(false);
      await store.setWorking(scope, 'first', { expectedVersion: 0 });
      await store.setWorking(scope, 'second', { expectedVersion: 1 });
      expect(await peer.forgetWorking(scope)).toBe(true);
      expect(await store.forgetWorking(scope)).toBe(false);
      expect(await store.getWorking(scope)).toBeUndefined();
      // A writer still holding version 2 cannot write over the forgotten block.
      expect(await rejection(store.setWorking(scope, 'late', { expectedVersion: 2 }))).toMatchObject({
        kind: 'working_memory_conflict',
        currentVersion: 0,
      });
      const again = await store.setWorking(scope, 'anew', { expectedVersion: 0 });
      expect(again).toEqual({ content: 'anew', version: 3 });
      expect(await peer.getWorking(scope)).toEqual(again);
    });

    it('hands back any JSON value exactly as written', async () => {
      const { store, peer } = await open();
      const values: unknown[] = [
        'Ana prefers metric units.\nShe lives in Lyon.',
        ['a', 1, -2.5, true, null, { nested: [[]] }],
        { emoji: '🙂 façade ﬁ', quote: '"\\', empty: {}, zero: 0, big: 1e300, list: [{ a: null }] },
        42,
        null,
        false,
      ];
      for (const [i, content] of values.entries()) {
        const scope = { resource: `json-${i}` };
        await store.setWorking(scope, content, { expectedVersion: 0 });
        expect(await peer.getWorking(scope)).toEqual({ content, version: 1 });
      }
    });

    it('refuses what it could not hand back unchanged, and bad arguments, with MemoryInputError; nothing is written', async () => {
      const { store } = await open();
      const scope = { resource: 'strict' };
      const cycle: Record<string, unknown> = {};
      cycle.self = cycle;
      const bad: unknown[] = [
        undefined,
        { a: undefined },
        [1, undefined],
        Number.NaN,
        { n: Infinity },
        () => 1,
        new Date(0),
        new Map(),
        10n,
        cycle,
        'has a \0 NUL',
        { ['key\0']: 1 },
        'lone \uD800 half',
        'x'.repeat(MAX_WORKING_LENGTH),
      ];
      for (const content of bad) {
        const error = await rejection(store.setWorking(scope, content, { expectedVersion: 0 }));
        expect(MemoryInputError.isInstance(error), String(content).slice(0, 30)).toBe(true);
      }
      const calls: Array<() => Promise<unknown>> = [
        () => store.setWorking(scope, 'ok', { expectedVersion: -1 }),
        () => store.setWorking(scope, 'ok', { expectedVersion: 1.5 }),
        () => store.setWorking(scope, 'ok', { expectedVersion: '0' as never }),
        () => store.setWorking(scope, 'ok', undefined as never),
        () => store.setWorking(undefined as never, 'ok', { expectedVersion: 0 }),
        () => store.getWorking(undefined as never),
        () => store.getWorking({ resource: '' }),
        () => store.forgetWorking('ana' as never),
      ];
      for (const call of calls) expect(MemoryInputError.isInstance(await rejection(call()))).toBe(true);
      expect(await store.getWorking(scope)).toBeUndefined();
    });

    if (options.tenants !== undefined) {
      const tenants = options.tenants;
      it('keeps tenants apart: the same scope under another tenant is another block', async () => {
        const [a, b] = await tenants();
        const scope = { resource: 'ana' };
        await a.setWorking(scope, { tenant: 'a' }, { expectedVersion: 0 });
        expect(await b.getWorking(scope)).toBeUndefined();
        expect(await b.forgetWorking(scope)).toBe(false);
        expect(await rejection(b.setWorking(scope, 'x', { expectedVersion: 1 }))).toMatchObject({ currentVersion: 0 });
        await b.setWorking(scope, { tenant: 'b' }, { expectedVersion: 0 });
        expect(await a.getWorking(scope)).toEqual({ content: { tenant: 'a' }, version: 1 });
        expect(await b.getWorking(scope)).toEqual({ content: { tenant: 'b' }, version: 1 });
      });
    }
  });
}
