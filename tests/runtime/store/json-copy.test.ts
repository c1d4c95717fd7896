// The one walk that copies a new node's turn must make exactly what JSON would: the copy a reload gives,
// the text JSON.stringify writes, and the canonical text ids are hashed from.
import { describe, expect, it } from 'vitest';
import { jsonString, plainJsonCopy } from '../../../src/runtime/store/json-copy.js';
import { canonicalJsonOfParsed } from '../../../src/runtime/store/hash.js';
import { generatedValue, random, STRINGS } from './generated-json.js';

// Plain JSON data only (what the walk copies itself), undefined among it.
const value = (next: () => number, depth: number) => generatedValue(next, depth, { plain: true });

describe('plainJsonCopy', () => {
  it('makes what JSON.parse(JSON.stringify(value)) makes, the text JSON.stringify writes and the canonical text, for 5,000 generated values', () => {
    for (let seed = 1; seed <= 5_000; seed++) {
      const v = { role: 'user', blocks: [value(random(seed), 1)] };
      const made = plainJsonCopy(v);
      expect(made, `seed ${seed}`).toBeDefined();
      const text = JSON.stringify(v);
      expect(made!.text, `seed ${seed}`).toBe(text);
      expect(made!.canonical, `seed ${seed}`).toBe(canonicalJsonOfParsed(JSON.parse(text)));
      // Byte for byte what a reload gives, own "__proto__" keys and -0 (reloaded as 0) included.
      expect(JSON.stringify(made!.copy)).toBe(text);
      expect(made!.copy, `seed ${seed}`).toStrictEqual(JSON.parse(text));
    }
  });

  it('copies: a change to the source afterwards does not reach the copy', () => {
    const source = { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'c1', name: 't', input: { n: [1] } }] };
    const made = plainJsonCopy(source)!;
    source.blocks[0].input.n.push(2);
    expect(made.copy).toEqual({ role: 'assistant', blocks: [{ kind: 'tool_call', id: 'c1', name: 't', input: { n: [1] } }] });
  });

  it('leaves to JSON what it has rules of its own for: toJSON, dates, class instances, non-finite numbers, functions, bigints, cycles, deep nesting', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = [deep];
    for (const odd of [
      { toJSON: () => 1 },
      new Date(0),
      new (class Point {})(),
      NaN,
      Infinity,
      () => 1,
      1n,
      Symbol('s'),
      cycle,
      deep,
      new Uint8Array(1),
    ]) {
      expect(plainJsonCopy({ role: 'user', blocks: [{ kind: 'text', text: 'x', odd }] })).toBeUndefined();
      // A walk given up midway leaves nothing behind for the next one.
      const next = { role: 'user', blocks: [{ kind: 'text', text: 'y', b: 1, a: 2 }] };
      expect(plainJsonCopy(next)?.canonical).toBe(canonicalJsonOfParsed(next));
    }
  });

  it('gives up on a value whose getter throws, and the next walk is whole', () => {
    const hostile = {
      kind: 'text',
      text: 'x',
      get boom(): never {
        throw new Error('boom');
      },
    };
    expect(plainJsonCopy({ role: 'user', blocks: [{ a: 1, b: { c: 2, d: hostile } }] })).toBeUndefined();
    const next = { role: 'user', blocks: [{ kind: 'text', text: 'y', b: 1, a: 2 }] };
    expect(plainJsonCopy(next)?.canonical).toBe(canonicalJsonOfParsed(next));
  });
});

describe('jsonString', () => {
  it('writes what JSON.stringify writes for strings with and without something to escape', () => {
    for (const text of [...STRINGS, '\u0000', '\t', 'a\udc00b', '\ud83d', 'ok'.repeat(100)])
      expect(jsonString(text)).toBe(JSON.stringify(text));
  });
});
