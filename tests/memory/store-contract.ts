// The behaviour every MemoryStore indusagi ships must have, run against each store by its own test file.
import { describe, expect, it } from 'vitest';
import type { GovernedMemoryStore } from '../../src/memory/index.js';
import { MemoryInputError } from '../../src/memory/index.js';
import { governanceContract } from './governance-contract.js';
import { rankingContract } from './ranking-contract.js';

export type StoreFactory = () => Promise<GovernedMemoryStore>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function memoryStoreContract(name: string, open: StoreFactory): void {
  describe(`${name}: the MemoryStore contract`, () => {
    it('saves with a random id and a createdAt from the clock, and returns the record', async () => {
      const store = await open();
      const before = Date.now();
      const a = await store.save('The user prefers metric units', { kind: 'preference', meta: { source: 'chat' } });
      const b = await store.save('The user prefers metric units');
      const after = Date.now();
      expect(a.id).toMatch(UUID);
      expect(b.id).not.toBe(a.id);
      expect(a.createdAt).toBeGreaterThanOrEqual(before);
      expect(a.createdAt).toBeLessThanOrEqual(after);
      expect(a).toMatchObject({ text: 'The user prefers metric units', kind: 'preference', meta: { source: 'chat' } });
      expect(b.kind).toBeUndefined();
    });

    it('finds a record by a different form of its words (case, plural, tense) and sets a positive score', async () => {
      const store = await open();
      await store.save('The user prefers metric units', { kind: 'preference' });
      await store.save('Deploys happen on Fridays');
      const hits = await store.search('which UNIT?', { k: 3 });
      expect(hits.map((h) => h.text)).toEqual(['The user prefers metric units']);
      expect(hits[0].score).toBeGreaterThan(0);
      expect(await store.search('invoices were created')).toEqual([]);
      await store.save('Create an invoice on the first of the month');
      expect((await store.search('invoices were created')).map((h) => h.text)).toEqual(['Create an invoice on the first of the month']);
    });

    it('ranks a record matching a rare query word above records matching only a common one, best first', async () => {
      const store = await open();
      for (let i = 0; i < 12; i++) await store.save(`project status update number ${i} for the project`);
      await store.save('project codename is Bluefin');
      const hits = await store.search('project bluefin', { k: 3 });
      expect(hits[0].text).toBe('project codename is Bluefin');
      expect(hits).toHaveLength(3);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1].score!).toBeGreaterThanOrEqual(hits[i].score!);
    });

    it('returns at most 5 records by default and at most k when given', async () => {
      const store = await open();
      for (let i = 0; i < 9; i++) await store.save(`coffee note ${i}`);
      expect(await store.search('coffee')).toHaveLength(5);
      expect(await store.search('coffee', { k: 7 })).toHaveLength(7);
      expect(await store.search('coffee', { k: 0 })).toEqual([]);
    });

    it('keeps only records scoring above minScore, and with the default 0 never returns a non-match', async () => {
      const store = await open();
      await store.save('tea in the morning');
      await store.save('tea and biscuits in the afternoon tea break');
      await store.save('nothing relevant here');
      const all = await store.search('tea', { k: 10 });
      expect(all.map((h) => h.text).sort()).toEqual(['tea and biscuits in the afternoon tea break', 'tea in the morning']);
      const cut = all[1].score!;
      const above = await store.search('tea', { k: 10, minScore: cut });
      expect(above).toHaveLength(1);
      expect(above[0].score).toBeGreaterThan(cut);
    });

    it('filters by kind', async () => {
      const store = await open();
      await store.save('likes green tea', { kind: 'preference' });
      await store.save('drank tea on Monday', { kind: 'event' });
      await store.save('tea stock is low');
      const prefs = await store.search('tea', { kind: 'preference' });
      expect(prefs.map((h) => h.text)).toEqual(['likes green tea']);
      expect(await store.search('tea', { kind: 'nothing-of-this-kind' })).toEqual([]);
    });

    it('returns [] for an empty or stop-word-only query', async () => {
      const store = await open();
      await store.save('the and of it');
      await store.save('anything at all');
      expect(await store.search('')).toEqual([]);
      expect(await store.search('   ')).toEqual([]);
      expect(await store.search('the of')).toEqual([]);
    });

    it('forgets a record so search and all no longer see it; false for an unknown id', async () => {
      const store = await open();
      const keep = await store.save('keep this note about sailing');
      const drop = await store.save('drop this note about sailing');
      expect(await store.forget(drop.id)).toBe(true);
      expect(await store.forget(drop.id)).toBe(false);
      expect(await store.forget('no-such-id')).toBe(false);
      expect((await store.search('sailing')).map((h) => h.id)).toEqual([keep.id]);
      expect((await store.all()).map((r) => r.id)).toEqual([keep.id]);
    });

    it('lists all records in save order', async () => {
      const store = await open();
      const saved = [await store.save('first'), await store.save('second', { kind: 'k' }), await store.save('third')];
      const all = await store.all();
      expect(all.map((r) => r.id)).toEqual(saved.map((r) => r.id));
      expect(all[1]).toEqual(saved[1]);
    });

    it('treats FTS or regex syntax in a query as plain words', async () => {
      const store = await open();
      await store.save('near the harbour wall');
      for (const hostile of ['NEAR(harbour wall)', '"harbour', 'harbour*', 'harbour OR', '^harbour', 'harbour)(', 'wall:harbour', '.*']) {
        const hits = await store.search(hostile);
        expect(hits.every((h) => h.text === 'near the harbour wall')).toBe(true);
        // Every query but '.*' keeps a plain word of the record, so it must still find it.
        expect(
          hits.map((h) => h.text),
          hostile,
        ).toEqual(hostile === '.*' ? [] : ['near the harbour wall']);
      }
    });

    it('rejects bad input with a MemoryInputError and stores nothing', async () => {
      const store = await open();
      const bad: Array<() => Promise<unknown>> = [
        () => store.save(42 as unknown as string),
        () => store.save('   '),
        () => store.save('ok', { kind: 7 as unknown as string }),
        () => store.save('ok', { meta: 'x' as unknown as Record<string, unknown> }),
        () => store.save('ok', { meta: { n: 10n } }),
        () => store.search(null as unknown as string),
        () => store.search('ok', { k: -1 }),
        () => store.search('ok', { k: 1.5 }),
        () => store.search('ok', { minScore: Number.NaN }),
        () => store.forget(5 as unknown as string),
      ];
      for (const call of bad) {
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(MemoryInputError.isInstance(error), String(error)).toBe(true);
      }
      expect(await store.all()).toEqual([]);
    });

    it('hands out copies: changing a returned record or the saved meta object changes nothing stored', async () => {
      const store = await open();
      const meta = { tags: ['a'] };
      const saved = await store.save('remember the milk', { meta });
      meta.tags.push('mutated');
      saved.text = 'changed';
      const [hit] = await store.search('milk');
      (hit.meta!.tags as string[]).push('also mutated');
      const [again] = await store.search('milk');
      expect(again.text).toBe('remember the milk');
      expect(again.meta).toEqual({ tags: ['a'] });
    });
  });
  governanceContract(name, open);
  rankingContract(name, open);
}
