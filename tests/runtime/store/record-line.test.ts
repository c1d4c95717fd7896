// A node is serialized once: the store writes the turn from the text its graph copied it from. What
// a store writes must still be, byte for byte, JSON.stringify of the record, and keep the caller's key order.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemorySessionStore, SessionGraph, SessionStore, SessionWriter } from '../../../src/runtime/store/index.js';
import type { SessionStoreLike } from '../../../src/runtime/store/index.js';
import { recordLine } from '../../../src/runtime/store/record-line.js';
import type { SessionRecord, Turn } from '../../../src/runtime/contract/index.js';
import { tempRoot, toolCall, toolResult, user } from './helpers.js';

const usage = { inputTokens: 3, outputTokens: 4, cacheWriteTokens: 1, cacheReadTokens: 2 };

describe('recordLine', () => {
  it('writes what JSON.stringify writes for every node a graph makes, and for records it did not make', () => {
    const graph = new SessionGraph('lines');
    const nodes = [
      graph.append(user('hi "there"\n'), 1),
      graph.append(toolCall('c1', 'files_write', { path: 'a.txt', content: 'x', nested: { z: 1, a: [null, 2.5] } }), 2, {
        usage,
        model: 'm',
      }),
      graph.append(toolResult('c1', 'ok'), 3),
      graph.append(user('summary'), 4, { condenses: { firstKept: null }, usage, model: 's' }),
    ];
    const records: SessionRecord[] = [
      ...nodes.map((node): SessionRecord => ({ type: 'node', node })),
      // Made by hand: the same node in another key order, a node with a field of its own, heads and starts.
      { type: 'node', node: { at: 2, turn: nodes[1].turn, parent: nodes[0].id, id: nodes[1].id } },
      { type: 'node', node: { ...nodes[0], extra: undefined, more: [1] } as never },
      { node: nodes[2], type: 'node' } as SessionRecord,
      { type: 'head', leaf: nodes[1].id },
      { type: 'head', leaf: null, tripped: { guardrail: 'g', stage: 'input', message: 'no', runId: 'r', at: 5 } },
      { type: 'started', callIds: ['c1'] },
    ];
    for (const record of records) expect(recordLine(record)).toBe(JSON.stringify(record));
  });

  it('writes a node as it was made even when the caller changes its own turn afterwards', () => {
    const graph = new SessionGraph('caller');
    const turn = toolCall('c1', 'counter_bump', { n: 1 });
    const node = graph.append(turn, 1);
    (turn.blocks[0] as { input: unknown }).input = { n: 99 };
    expect(JSON.parse(recordLine({ type: 'node', node })).node.turn).toEqual(toolCall('c1', 'counter_bump', { n: 1 }));
  });
});

describe('the records a writer hands a store', () => {
  // What the writer appends, captured on its way to the store.
  async function writtenRecords(): Promise<SessionRecord[]> {
    const appended: SessionRecord[] = [];
    const memory = new MemorySessionStore();
    const store: SessionStoreLike = {
      acquire: (id) => memory.acquire(id),
      read: (id) => memory.read(id),
      release: (lease) => memory.release(lease),
      append: (lease, records) => {
        appended.push(...records);
        return memory.append(lease, records);
      },
    };
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('hi "there"\n'), 1);
    writer.append(toolCall('c1', 'files_write', { path: 'a.txt', content: 'x', nested: { z: 1, a: [null, 2.5] } }), 2, {
      usage,
      model: 'm',
    });
    writer.append(toolResult('c1', 'ok'), 3);
    writer.append(user('summary'), 4, { condenses: { firstKept: null }, usage, model: 's' });
    await writer.close();
    return appended;
  }

  it('are written as JSON.stringify writes them, from the texts each node was made with', async () => {
    const records = await writtenRecords();
    expect(records.filter((record) => record.type === 'node')).toHaveLength(4);
    for (const record of records) expect(recordLine(record)).toBe(JSON.stringify(record));
  });

  it('are written as they are once changed after they were made: a field replaced or added, a turn swapped, a toJSON', async () => {
    const changes: Array<(record: SessionRecord & { type: 'node' }) => void> = [
      (record) => void (record.node.usage = { ...usage, inputTokens: 99 }),
      (record) => void ((record.node as { extra?: unknown }).extra = [1]),
      (record) => void (record.node.turn = user('swapped')),
      (record) => void (record.node.at = 42),
      (record) => void (record.node = { ...record.node, parent: null }),
      (record) => void ((record as { more?: unknown }).more = true),
      (record) => void ((record.node as { toJSON?: unknown }).toJSON = () => 'replaced'),
    ];
    for (const change of changes) {
      const record = (await writtenRecords()).find((r) => r.type === 'node' && r.node.usage !== undefined) as SessionRecord & {
        type: 'node';
      };
      change(record);
      expect(recordLine(record)).toBe(JSON.stringify(record));
    }
  });
});

describe('stores write each node once, in the caller’s key order', () => {
  let root: string;
  let cleanup: () => void;
  beforeEach(() => ({ root, cleanup } = tempRoot()));
  afterEach(() => cleanup());

  // Keys deliberately out of order: a resumed run must send these arguments byte for byte as the live run did.
  const call: Turn = {
    role: 'assistant',
    blocks: [{ kind: 'tool_call', name: 'files_write', id: 'c1', input: { path: 'notes/plan.txt', content: 'first draft', mode: 'w' } }],
  };

  for (const [name, make] of [
    ['MemorySessionStore', () => new MemorySessionStore()],
    ['SessionStore', () => new SessionStore(root)],
  ] as Array<[string, () => SessionStoreLike]>) {
    it(`${name}: a reload gives every turn back as JSON.stringify wrote it, with the ids it was made with`, async () => {
      const store = make();
      const writer = await SessionWriter.open(store, 's');
      const made = [
        writer.append(user('write the plan'), 1),
        writer.append(call, 2, { usage, model: 'm' }),
        writer.append(toolResult('c1', 'done'), 3),
      ];
      await writer.close();
      const loaded = await (store as MemorySessionStore).loadSession('s');
      const context = loaded.contextNodes(loaded.leaf!);
      expect(context.map((node) => node.id)).toEqual(made.map((node) => node.id));
      expect(context.map((node) => JSON.stringify(node.turn))).toEqual(
        [user('write the plan'), call, toolResult('c1', 'done')].map((turn) => JSON.stringify(turn)),
      );
      expect(context[1].usage).toEqual(usage);
      expect(context[1].model).toBe('m');
    });
  }
});
