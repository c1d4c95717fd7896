// Memory governance every store must have: superseding, provenance, scopes, list/get/update/forget,
// and hostile input. Run by each store's test file through memoryStoreContract.
import { describe, expect, it } from 'vitest';
import { MAX_TEXT_LENGTH, MemoryConflictError, MemoryInputError } from '../../src/memory/index.js';
import type { StoreFactory } from './store-contract.js';

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

export function governanceContract(name: string, open: StoreFactory): void {
  describe(`${name}: superseding`, () => {
    it('an explicit supersedes retires the old record: kept and marked, never recalled by default', async () => {
      const store = await open();
      const old = await store.save('The user prefers metric units', { kind: 'preference' });
      const fresh = await store.save('The user prefers imperial units now', { kind: 'preference', supersedes: old.id });
      expect(fresh.supersedes).toEqual([old.id]);
      expect((await store.search('units')).map((r) => r.id)).toEqual([fresh.id]);
      const both = await store.search('units', { includeSuperseded: true });
      expect(both.map((r) => r.id).sort()).toEqual([old.id, fresh.id].sort());
      const kept = await store.get(old.id);
      expect(kept).toMatchObject({ id: old.id, text: 'The user prefers metric units', supersededBy: fresh.id });
      expect(kept!.supersededAt).toBeGreaterThanOrEqual(old.createdAt);
      expect((await store.list()).map((r) => r.id)).toEqual([fresh.id]);
      expect((await store.list({ includeSuperseded: true })).map((r) => r.id)).toEqual([old.id, fresh.id]);
      expect((await store.all()).map((r) => r.id)).toEqual([old.id, fresh.id]);
    });

    it('a save with the key of a current record in the same scope supersedes it; other scopes and keys are untouched', async () => {
      const store = await open();
      const first = await store.save('Deploys run on Fridays', { key: 'deploy-day' });
      const otherUser = await store.save('Deploys run on Mondays', { key: 'deploy-day', scope: { resource: 'u2' } });
      const unrelated = await store.save('Builds run nightly', { key: 'build-time' });
      const second = await store.save('Deploys run on Thursdays', { key: 'deploy-day' });
      expect(second.supersedes).toEqual([first.id]);
      const third = await store.save('Deploys run on Wednesdays', { key: 'deploy-day' });
      expect(third.supersedes).toEqual([second.id]);
      expect((await store.list({ includeSuperseded: true })).filter((r) => r.supersededBy === undefined).map((r) => r.id)).toEqual([
        otherUser.id,
        unrelated.id,
        third.id,
      ]);
      expect((await store.get(first.id))!.supersededBy).toBe(second.id);
    });

    it('the same fact restated (same words after folding case, punctuation, stop words and endings) supersedes the old one', async () => {
      const store = await open();
      const a = await store.save('The build runs on Fridays.', { kind: 'fact' });
      const b = await store.save('build run  Friday', { kind: 'fact' });
      expect(b.supersedes).toEqual([a.id]);
      // A different kind, scope or wording is a different record: nothing is retired by a guess.
      const c = await store.save('the build runs on fridays', { kind: 'note' });
      const d = await store.save('the build runs on fridays', { kind: 'fact', scope: { resource: 'u1' } });
      const e = await store.save('the build runs on Saturdays', { kind: 'fact' });
      for (const r of [c, d, e]) expect(r.supersedes).toBeUndefined();
      expect((await store.list()).map((r) => r.id)).toEqual([b.id, c.id, d.id, e.id]);
    });

    it('refuses to supersede a record that does not exist, is already superseded or sits in another scope, and saves nothing', async () => {
      const store = await open();
      const shared = await store.save('shared fact about parking');
      const mine = await store.save('my fact about parking', { scope: { resource: 'u1' } });
      const newer = await store.save('newer fact about parking', { scope: { resource: 'u1' }, supersedes: mine.id });
      const attempts = [
        () => store.save('x about parking', { supersedes: 'no-such-id' }),
        () => store.save('x about parking', { scope: { resource: 'u1' }, supersedes: mine.id }),
        () => store.save('x about parking', { scope: { resource: 'u1' }, supersedes: shared.id }),
        () => store.save('x about parking', { scope: { resource: 'u2' }, supersedes: [newer.id] }),
      ];
      for (const attempt of attempts) {
        const error = await rejection(attempt());
        expect(MemoryConflictError.isInstance(error), String(error)).toBe(true);
        expect((error as MemoryConflictError).kind).toBe('memory_conflict');
      }
      expect((await store.all()).map((r) => r.id)).toEqual([shared.id, mine.id, newer.id]);
      expect((await store.get(newer.id))!.supersededBy).toBeUndefined();
    });
  });

  describe(`${name}: provenance`, () => {
    it('every record carries where and when it was learned, through save, search, get and list', async () => {
      const store = await open();
      const before = Date.now();
      const plain = await store.save('Plain fact about tea');
      expect(plain.provenance).toEqual({ at: plain.createdAt });
      const sourced = await store.save('Sourced fact about tea', {
        provenance: { sessionId: 's-42', nodeId: 'a1b2c3', at: 1_700_000_000_000 },
      });
      expect(sourced.provenance).toEqual({ sessionId: 's-42', nodeId: 'a1b2c3', at: 1_700_000_000_000 });
      expect(sourced.createdAt).toBeGreaterThanOrEqual(before);
      const [hit] = await store.search('sourced tea');
      expect(hit.provenance).toEqual(sourced.provenance);
      expect((await store.get(sourced.id))!.provenance).toEqual(sourced.provenance);
      expect((await store.list()).map((r) => r.provenance)).toEqual([{ at: plain.createdAt }, sourced.provenance]);
      const error = await rejection(store.save('bad', { provenance: { sessionId: '' } }));
      expect(MemoryInputError.isInstance(error)).toBe(true);
    });
  });

  describe(`${name}: scopes`, () => {
    const seed = async () => {
      const store = await open();
      const shared = await store.save('office wifi password is hunter2');
      const u1 = await store.save('u1 wifi at home is fast', { scope: { resource: 'u1' } });
      const u1s1 = await store.save('u1 wifi in this chat is slow', { scope: { resource: 'u1', session: 's1' } });
      const u2 = await store.save('u2 wifi at home is broken', { scope: { resource: 'u2' } });
      return { store, shared, u1, u1s1, u2 };
    };

    it("search sees shared records and the reader's own, never another resource's or session's", async () => {
      const { store, shared, u1, u1s1, u2 } = await seed();
      const ids = async (scope?: { resource?: string; session?: string }) =>
        (await store.search('wifi', { k: 10, scope })).map((r) => r.id).sort();
      expect(await ids()).toEqual([shared.id]);
      expect(await ids({ resource: 'u1' })).toEqual([shared.id, u1.id].sort());
      expect(await ids({ resource: 'u1', session: 's1' })).toEqual([shared.id, u1.id, u1s1.id].sort());
      expect(await ids({ resource: 'u1', session: 's2' })).toEqual([shared.id, u1.id].sort());
      expect(await ids({ resource: 'u2' })).toEqual([shared.id, u2.id].sort());
      expect(await ids({ resource: 'u3' })).toEqual([shared.id]);
      expect((await store.get(u1s1.id))!.scope).toEqual({ resource: 'u1', session: 's1' });
    });

    it('list, get, update and forget act only on what the owner holds', async () => {
      const { store, shared, u1, u1s1, u2 } = await seed();
      expect((await store.list({ scope: { resource: 'u1' } })).map((r) => r.id)).toEqual([u1.id, u1s1.id]);
      expect((await store.list({ scope: { resource: 'u1', session: 's1' } })).map((r) => r.id)).toEqual([u1s1.id]);
      expect((await store.list()).map((r) => r.id)).toEqual([shared.id, u1.id, u1s1.id, u2.id]);
      expect(await store.get(u1.id, { scope: { resource: 'u2' } })).toBeUndefined();
      expect(await store.get(shared.id, { scope: { resource: 'u1' } })).toBeUndefined();
      expect(await store.update(u1.id, { text: 'hijacked' }, { scope: { resource: 'u2' } })).toBeUndefined();
      expect(await store.forget(u1.id, { scope: { resource: 'u2' } })).toBe(false);
      expect(await store.forget(shared.id, { scope: { resource: 'u1' } })).toBe(false);
      expect((await store.get(u1.id))!.text).toBe('u1 wifi at home is fast');
      expect(await store.forget(u1s1.id, { scope: { resource: 'u1' } })).toBe(true);
      expect((await store.all()).map((r) => r.id)).toEqual([shared.id, u1.id, u2.id]);
    });

    it('refuses a scope that is not an object of non-empty strings', async () => {
      const store = await open();
      for (const scope of [{ resource: '' }, { session: 7 }, 'u1', [], { resource: 'a\0b' }]) {
        const error = await rejection(store.save('scoped fact', { scope: scope as never }));
        expect(MemoryInputError.isInstance(error), JSON.stringify(scope)).toBe(true);
        expect(MemoryInputError.isInstance(await rejection(store.search('fact', { scope: scope as never })))).toBe(true);
      }
      expect(await store.all()).toEqual([]);
    });
  });

  describe(`${name}: editing`, () => {
    it('update edits text, kind and meta in place; the new text is what search finds', async () => {
      const store = await open();
      const record = await store.save('The cat is called Tom', { kind: 'pet', meta: { from: 'chat' } });
      const other = await store.save('The dog is called Rex');
      const edited = await store.update(record.id, { text: 'The cat is called Felix', kind: null, meta: { from: 'user' } });
      expect(edited).toMatchObject({ id: record.id, text: 'The cat is called Felix', meta: { from: 'user' }, createdAt: record.createdAt });
      expect(edited!.kind).toBeUndefined();
      expect(edited!.updatedAt).toBeGreaterThanOrEqual(record.createdAt);
      expect(await store.search('tom')).toEqual([]);
      expect((await store.search('felix')).map((r) => r.id)).toEqual([record.id]);
      expect(await store.get(record.id)).toEqual(edited);
      const metaGone = await store.update(record.id, { meta: null, kind: 'pet' });
      expect(metaGone!.meta).toBeUndefined();
      expect(metaGone!.kind).toBe('pet');
      expect((await store.list()).map((r) => r.id)).toEqual([record.id, other.id]);
      expect(await store.update('no-such-id', { text: 'x' })).toBeUndefined();
    });

    it('refuses an edit that changes nothing or is malformed, and changes nothing', async () => {
      const store = await open();
      const record = await store.save('keep me as I am');
      for (const edit of [{}, { text: '  ' }, { kind: 5 }, { meta: 'x' }, { text: 'a\0b' }, undefined]) {
        const error = await rejection(store.update(record.id, edit as never));
        expect(MemoryInputError.isInstance(error), JSON.stringify(edit)).toBe(true);
      }
      expect(await store.get(record.id)).toEqual(record);
    });
  });

  describe(`${name}: hostile input`, () => {
    it('treats SQL, tsquery and FTS syntax in a query as plain words, and NUL bytes as separators', async () => {
      const store = await open();
      const target = await store.save("Robert'); DROP TABLE students;-- likes tables");
      await store.save('nothing to see');
      const hostile = [
        "'; DROP TABLE memory_records; --",
        'tables & !robert | students:*',
        'robert <-> students',
        "students' OR '1'='1",
        'tables\0robert',
        '\\\\ robert \\',
        '$1 $2 robert',
        'NEAR(robert students) AND tables*',
      ];
      for (const query of hostile)
        expect(
          (await store.search(query)).map((r) => r.id),
          query,
        ).toEqual([target.id]);
      expect((await store.all()).length).toBe(2);
    });

    it('refuses text no store can keep: NUL, a lone surrogate, more than MAX_TEXT_LENGTH characters', async () => {
      const store = await open();
      for (const text of ['a\0b', 'half \uD800 a pair', 'x'.repeat(MAX_TEXT_LENGTH + 1)]) {
        expect(MemoryInputError.isInstance(await rejection(store.save(text)))).toBe(true);
      }
      expect(MemoryInputError.isInstance(await rejection(store.save('ok', { meta: { note: 'a\0b' } })))).toBe(true);
      expect(MemoryInputError.isInstance(await rejection(store.save('ok', { kind: '\uDC00' })))).toBe(true);
      expect(await store.all()).toEqual([]);
    });

    it('keeps and finds a huge record: the longest text allowed, a word of thousands of letters, emoji and Devanagari', async () => {
      const store = await open();
      const words = Array.from({ length: 25_000 }, (_, i) => `w${i.toString(36)}`).join(' ');
      const huge = await store.save(`${words} `.padEnd(MAX_TEXT_LENGTH - 7, 'z') + ' needle');
      const blob = 'q'.repeat(5_000);
      const long = await store.save(`token ${blob} end`);
      const intl = await store.save('नमस्ते दुनिया 🎉 café');
      expect((await store.search('needle')).map((r) => r.id)).toEqual([huge.id]);
      expect((await store.search(blob)).map((r) => r.id)).toEqual([long.id]);
      expect((await store.search('दुनिया')).map((r) => r.id)).toEqual([intl.id]);
      expect((await store.search('CAFE')).map((r) => r.id)).toEqual([intl.id]);
      expect((await store.get(huge.id))!.text.length).toBe(MAX_TEXT_LENGTH);
      expect((await store.get(intl.id))!.text).toBe('नमस्ते दुनिया 🎉 café');
    });
  });
}
