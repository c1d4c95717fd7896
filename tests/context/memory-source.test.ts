import { describe, expect, it } from 'vitest';
import { ContextInputError, createContextManager, memorySource } from '../../src/context/index.js';
import type { CompletedTurn, ContextTurn } from '../../src/context/index.js';
import { createMemoryStore, formatMemoryBlock } from '../../src/memory/index.js';
import type { Turn } from '../../src/runtime/contract/turn.js';

const count = (text: string) => Math.ceil(text.length / 4);
const ask = (prompt: string): ContextTurn => ({ prompt, messages: [{ role: 'user', blocks: [{ kind: 'text', text: prompt }] }] });

async function seeded() {
  const memory = createMemoryStore();
  await memory.save('The user prefers metric units', { kind: 'preference' });
  await memory.save('The user lives in Lisbon', { kind: 'fact' });
  await memory.save('The user is allergic to peanuts', { kind: 'fact' });
  return memory;
}

describe('memorySource', () => {
  it("is named 'memory' and recalls records matching the prompt into the system prompt", async () => {
    const memory = await seeded();
    const source = memorySource(memory);
    expect(source.name).toBe('memory');
    const manager = createContextManager({ budget: { maxTokens: 10_000, count }, sources: [source] });
    const prepared = await manager.prepare(ask('How far is it in km, given where I live?'));
    const expected = await memory.search('How far is it in km, given where I live?');
    expect(prepared.system).toBe(formatMemoryBlock(expected));
    expect(prepared.system).toContain('- The user lives in Lisbon');
    expect(prepared.parts).toEqual([{ type: 'context', source: 'memory', op: 'recalled', records: expected }]);
  });

  it('recalls with the recall options', async () => {
    const memory = await seeded();
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [memorySource(memory, { recall: { kind: 'preference', k: 1 } })],
    });
    const prepared = await manager.prepare(ask('the user lives with metric units'));
    expect(prepared.parts[0].records?.map((r) => r.text)).toEqual(['The user prefers metric units']);
  });

  it('adds nothing and reports nothing when nothing matches', async () => {
    const manager = createContextManager({ budget: { maxTokens: 10_000, count }, sources: [memorySource(await seeded())] });
    const prepared = await manager.prepare(ask('Tell me a joke about submarines'));
    expect(prepared).toMatchObject({ system: '', parts: [], skipped: [] });
  });

  it('is skipped, with its cost reported, when the recalled block does not fit the budget', async () => {
    const memory = createMemoryStore();
    await memory.save(`Travel notes: ${'long detail about the trip '.repeat(40)}`);
    const messages: Turn[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'trip?' }] }];
    const manager = createContextManager({ budget: { maxTokens: 200, reserve: 100, count }, sources: [memorySource(memory)] });
    const prepared = await manager.prepare({ prompt: 'trip?', messages });
    expect(prepared.system).toBe('');
    expect(prepared.parts).toEqual([
      { type: 'context', source: 'memory', op: 'skipped', records: prepared.skipped[0].records, tokens: prepared.skipped[0].tokens },
    ]);
    expect(prepared.skipped).toHaveLength(1);
    expect(prepared.skipped[0]).toMatchObject({ source: 'memory', op: 'recalled' });
    expect(prepared.skipped[0].tokens).toBe(count(formatMemoryBlock(prepared.skipped[0].records!)));
  });

  it('saves exactly what remember returns after the turn, and reports it', async () => {
    const memory = createMemoryStore();
    const seen: CompletedTurn[] = [];
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [memorySource(memory, { remember: (turn) => (seen.push(turn), ['  The user has a dog named Rex ', '']) })],
    });
    const turn = { ...ask('My dog Rex needs a walk'), text: 'Noted: Rex the dog.' };
    const parts = await manager.commit(turn);
    expect(seen).toEqual([turn]);
    const all = await memory.all!();
    expect(all.map((r) => [r.text, r.kind])).toEqual([['The user has a dog named Rex', 'fact']]);
    expect(parts).toEqual([{ type: 'context', source: 'memory', op: 'saved', records: all }]);
  });

  it('saves each fact with the turn it came from as context: a search by what was said around it finds it, below a record that says it', async () => {
    const memory = createMemoryStore();
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [memorySource(memory, { remember: async () => ['The user booked it for Saturday'] })],
    });
    const turn: CompletedTurn = {
      prompt: 'Book the dentist for Saturday',
      messages: [
        { role: 'user', blocks: [{ kind: 'text', text: 'My tooth hurts since the hiking trip' }] },
        { role: 'assistant', blocks: [{ kind: 'text', text: 'Sorry to hear it.' }] },
        { role: 'user', blocks: [{ kind: 'text', text: 'Book the dentist for Saturday' }] },
      ],
      text: 'Booked with Dr. Okafor.',
    };
    await manager.commit(turn);
    const says = await memory.save('The dentist is Dr. Okafor, near the hiking trail');
    const hits = await memory.search('dentist hiking okafor');
    expect(hits.map((h) => h.text)).toEqual(['The dentist is Dr. Okafor, near the hiking trail', 'The user booked it for Saturday']);
    expect(hits[0].id).toBe(says.id);
    // The context is not part of the record.
    expect(hits[1].text).not.toContain('dentist');
  });

  it('uses rememberKind for saved facts', async () => {
    const memory = createMemoryStore();
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [memorySource(memory, { remember: async () => ['Prefers tea'], rememberKind: 'preference' })],
    });
    await manager.commit({ ...ask('x'), text: 'y' });
    expect((await memory.all!())[0].kind).toBe('preference');
  });

  it('with a recall scope, recalls only what that scope may see and saves what it learns into that scope', async () => {
    const memory = createMemoryStore();
    await memory.save('The user drinks tea', { scope: { resource: 'ana' } });
    await memory.save('The user drinks coffee', { scope: { resource: 'bob' } });
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [memorySource(memory, { recall: { scope: { resource: 'ana' } }, remember: async () => ['The user drinks it with milk'] })],
    });
    const prepared = await manager.prepare(ask('what does the user drink?'));
    expect(prepared.system).toContain('The user drinks tea');
    expect(prepared.system).not.toContain('coffee');
    await manager.commit({ ...ask('x'), text: 'y' });
    const saved = (await memory.list()).find((r) => r.text === 'The user drinks it with milk');
    expect(saved?.scope).toEqual({ resource: 'ana' });
  });

  it('never decides on its own what to save: without remember, commit writes nothing', async () => {
    const memory = createMemoryStore();
    const manager = createContextManager({ budget: { maxTokens: 10_000, count }, sources: [memorySource(memory)] });
    expect(await manager.commit({ ...ask('I was born in 1990, remember that!'), text: 'I will remember.' })).toEqual([]);
    expect(await memory.all!()).toEqual([]);
  });

  it('rejects something that is not a store, or a remember that is not a function', () => {
    expect(() => memorySource({} as never)).toThrow(ContextInputError);
    expect(() => memorySource(createMemoryStore(), { remember: ['fact'] as never })).toThrow(ContextInputError);
  });
});
