import { describe, expect, it } from 'vitest';
import { createMemoryStore, formatMemoryBlock, MemoryInputError, recallMemory, rememberFacts } from '../../src/memory/index.js';
import type { MemoryRecord, MemoryStore } from '../../src/memory/index.js';

/** A store of the user's own making (the interface is public): the in-process store plus a call log. */
function loggedStore() {
  const inner = createMemoryStore();
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store: MemoryStore = {
    async save(text, opts) {
      calls.push(`save:${text}`);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      return inner.save(text, opts);
    },
    async search(query, opts) {
      calls.push(`search:${query}`);
      return inner.search(query, opts);
    },
    forget: (id) => inner.forget(id),
  };
  return { store, calls, maxInFlight: () => maxInFlight };
}

describe('formatMemoryBlock', () => {
  it("is '' for no records", () => {
    expect(formatMemoryBlock([])).toBe('');
  });

  it('is the header line followed by one "- text" line per record', () => {
    const records: MemoryRecord[] = [
      { id: '1', text: 'Prefers metric units', createdAt: 0 },
      { id: '2', text: 'Lives in Lisbon', createdAt: 0 },
    ];
    expect(formatMemoryBlock(records)).toBe('Relevant memory (use if helpful):\n- Prefers metric units\n- Lives in Lisbon');
  });

  it('keeps a multi-line record on its one line', () => {
    const block = formatMemoryBlock([{ id: '1', text: 'Address:\n  12 Rua Augusta\r\n  Lisbon', createdAt: 0 }]);
    expect(block.split('\n')).toEqual(['Relevant memory (use if helpful):', '- Address: 12 Rua Augusta Lisbon']);
  });
});

describe('recallMemory', () => {
  it('returns the hits and the block built from them', async () => {
    const memory = createMemoryStore();
    await memory.save('The user prefers metric units', { kind: 'preference' });
    await memory.save('The user has a cat called Miso');
    const { records, block } = await recallMemory(memory, 'what units should I use?', { k: 3 });
    expect(records.map((r) => r.text)).toEqual(['The user prefers metric units']);
    expect(block).toBe(formatMemoryBlock(records));
  });

  it('passes k, kind and minScore through to the store', async () => {
    const memory = createMemoryStore();
    for (let i = 0; i < 4; i++) await memory.save(`garden note ${i}`, { kind: i % 2 ? 'odd' : 'even' });
    expect((await recallMemory(memory, 'garden', { k: 1 })).records).toHaveLength(1);
    expect((await recallMemory(memory, 'garden', { kind: 'odd' })).records.map((r) => r.kind)).toEqual(['odd', 'odd']);
    expect((await recallMemory(memory, 'garden', { minScore: 1e9 })).records).toEqual([]);
  });

  it('does not search at all for an empty query', async () => {
    const { store, calls } = loggedStore();
    expect(await recallMemory(store, '')).toEqual({ records: [], block: '' });
    expect(await recallMemory(store, '  \n ')).toEqual({ records: [], block: '' });
    expect(calls).toEqual([]);
  });

  it('rejects a non-string query', async () => {
    await expect(recallMemory(createMemoryStore(), 7 as unknown as string)).rejects.toBeInstanceOf(MemoryInputError);
  });
});

describe('rememberFacts', () => {
  it('saves trimmed facts in order, one at a time, skipping empty ones, as kind "fact"', async () => {
    const { store, calls, maxInFlight } = loggedStore();
    const saved = await rememberFacts(store, ['  likes tea ', '', '   ', 'works remotely']);
    expect(calls).toEqual(['save:likes tea', 'save:works remotely']);
    expect(maxInFlight()).toBe(1);
    expect(saved.map((r) => [r.text, r.kind])).toEqual([
      ['likes tea', 'fact'],
      ['works remotely', 'fact'],
    ]);
  });

  it('uses the kind it is given', async () => {
    const saved = await rememberFacts(createMemoryStore(), ['prefers dark mode'], { kind: 'preference' });
    expect(saved[0].kind).toBe('preference');
  });

  it('checks every fact before saving any, so a bad list saves nothing', async () => {
    const { store, calls } = loggedStore();
    await expect(rememberFacts(store, ['fine', 42 as unknown as string])).rejects.toThrow(/facts\[1\] must be a string/);
    await expect(rememberFacts(store, 'one fact' as unknown as string[])).rejects.toBeInstanceOf(MemoryInputError);
    await expect(rememberFacts(store, ['fine', 'bad\0byte'])).rejects.toThrow(/facts\[1\] contains a NUL/);
    expect(calls).toEqual([]);
  });

  it('saves every fact into the scope and with the provenance it is given', async () => {
    const memory = createMemoryStore();
    const [saved] = await rememberFacts(memory, ['Works remotely'], {
      scope: { resource: 'ana' },
      provenance: { sessionId: 's9', nodeId: 'n1' },
    });
    expect(saved).toMatchObject({
      kind: 'fact',
      scope: { resource: 'ana' },
      provenance: { sessionId: 's9', nodeId: 'n1', at: saved.createdAt },
    });
  });
});
