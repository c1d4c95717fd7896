// A node id is sha256 of the canonical JSON of { parent, turn, at }: every id already stored depends on
// that text staying byte for byte what fast-json-stable-stringify wrote when the ids were made.
import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonOfParsed, hashNode } from '../../../src/runtime/store/hash.js';
import { SessionGraph } from '../../../src/runtime/store/graph.js';
import { nodeIdentity } from '../../../src/runtime/store/new-node.js';
import type { Turn } from '../../../src/runtime/contract/index.js';
import { generatedValue, random } from './generated-json.js';

// Dates, functions, NaN and the infinities among them: canonicalJson must treat them as JSON does.
const value = (next: () => number, depth: number) => generatedValue(next, depth, { plain: false });

describe('canonicalJson', () => {
  it('writes what fast-json-stable-stringify writes, for 5,000 generated values', () => {
    for (let seed = 1; seed <= 5_000; seed++) {
      const v = value(random(seed), 0);
      expect(canonicalJson(v), `seed ${seed}`).toBe(stableStringify(v));
    }
  });

  it('writes the same text for a value JSON.parse made, by the path every new node takes', () => {
    for (let seed = 1; seed <= 5_000; seed++) {
      const text = JSON.stringify(value(random(seed), 0));
      if (text === undefined) continue;
      const parsed: unknown = JSON.parse(text);
      expect(canonicalJsonOfParsed(parsed), `seed ${seed}`).toBe(stableStringify(parsed));
    }
  });

  it('sorts keys, integer-like ones as strings, and honours toJSON, undefined and functions as JSON does', () => {
    expect(canonicalJson({ b: 1, a: [undefined, () => 0], 10: 'x', 9: 'y', skip: undefined, at: { toJSON: () => 'then' } })).toBe(
      '{"10":"x","9":"y","a":[null,null],"at":"then","b":1}',
    );
  });

  it('refuses a cycle with a TypeError, as JSON.stringify does', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(() => canonicalJson(loop)).toThrow(TypeError);
    // A value seen twice side by side is not a cycle.
    const shared = { x: 1 };
    expect(canonicalJson([shared, shared])).toBe('[{"x":1},{"x":1}]');
  });
});

describe('hashNode', () => {
  const old = (identity: object) => createHash('sha256').update(stableStringify(identity)).digest('hex');

  it('gives every node the id it had before: sha256 of the sorted JSON of exactly { parent, turn, at }', () => {
    const turn: Turn = {
      role: 'assistant',
      blocks: [{ kind: 'tool_call', id: 'c1', name: 'counter_bump', input: { n: 1, b: [true, null] } }],
    };
    for (const parent of [null, 'f'.repeat(64)]) {
      expect(hashNode({ parent, turn, at: 1_700_000_000_123 })).toBe(old({ parent, turn, at: 1_700_000_000_123 }));
      // Anything else on a node (its stored id, usage) is not part of the identity.
      expect(hashNode({ parent, turn, at: 5, id: 'x', usage: {} } as never)).toBe(old({ parent, turn, at: 5 }));
    }
    for (let seed = 1; seed <= 500; seed++) {
      const turn = { role: 'user', blocks: [{ kind: 'text', text: 'hi', extra: value(random(seed), 1) }] } as unknown as Turn;
      expect(hashNode({ parent: 'p', turn, at: seed }), `seed ${seed}`).toBe(old({ parent: 'p', turn, at: seed }));
    }
    // Fields JSON has no text for are left out, as the library left them out.
    expect(hashNode({ parent: undefined, turn, at: 1 } as never)).toBe(old({ turn, at: 1 }));
  });
});

describe('nodeIdentity', () => {
  it('keeps the turn in the caller’s key order, so a resumed run sends a tool’s arguments as the live run did, and hashes it as hashNode does', () => {
    const turn: Turn = {
      role: 'assistant',
      blocks: [{ kind: 'tool_call', id: 'c1', name: 'files_write', input: { path: 'notes/plan.txt', content: 'first draft' } }],
    };
    const { id, turn: copy } = nodeIdentity('p', turn, 7);
    expect(JSON.stringify(copy)).toBe(JSON.stringify(turn));
    expect(copy).not.toBe(turn);
    expect(id).toBe(hashNode({ parent: 'p', turn, at: 7 }));
  });
});

describe('node ids', () => {
  it('are the ids sessions already on disk carry: two known nodes hash to the same hex as ever', () => {
    // Written down from the store before nodes were serialized once; a change here orphans every stored session.
    const graph = new SessionGraph('pinned');
    const prompt = graph.append({ role: 'user', blocks: [{ kind: 'text', text: 'Count to two, "quoted" é 😀' }] }, 1_700_000_000_000);
    const reply = graph.append(
      {
        role: 'assistant',
        blocks: [
          {
            kind: 'tool_call',
            id: 'c1',
            name: 'files_write',
            input: { path: 'notes/plan.txt', content: 'first draft', z: [1, 2.5, null, true], a: { y: 1, b: 2 } },
          },
        ],
      },
      1_700_000_000_001,
      { usage: { inputTokens: 3, outputTokens: 4, cacheWriteTokens: 0, cacheReadTokens: 0 }, model: 'm' },
    );
    expect(prompt.id).toBe('722497cfee2d5707f8091342fec49aa6e425f2ddd1644ab5e953d991286de5a6');
    expect(reply.id).toBe('c029980b7df53a2ffb10feec60b7b567c3ec48d40d1f83e6e62d41f645ae9d78');
    expect(hashNode(reply)).toBe(reply.id);
  });
});
