import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BrokenCompactionError,
  InvalidTurnError,
  MissingHistoryError,
  SessionGraph,
  SessionIntegrityError,
  UnknownNodeError,
  hashNode,
} from '../../../src/runtime/store/index.js';
import type { SessionRecord, Turn } from '../../../src/runtime/contract/index.js';
import { assistant, toolCall, toolResult, user } from './helpers.js';

const summary = (text: string): Turn => ({ role: 'user', blocks: [{ kind: 'text', text: `[condensed earlier context] ${text}` }] });
/** What a store holds of a graph: every node in the order added, then a head naming its leaf. */
const recordsOf = (graph: SessionGraph): SessionRecord[] => [
  ...[...graph.allNodes()].map((node): SessionRecord => ({ type: 'node', node })),
  { type: 'head', leaf: graph.leaf },
];

describe('hashNode', () => {
  it('is the sha256 of the canonical JSON of exactly parent, turn and at', () => {
    const turn: Turn = { role: 'user', blocks: [{ kind: 'text', text: 'hi' }] };
    const canonical = '{"at":5,"parent":null,"turn":{"blocks":[{"kind":"text","text":"hi"}],"role":"user"}}';
    expect(hashNode({ parent: null, turn, at: 5 })).toBe(createHash('sha256').update(canonical).digest('hex'));
    // Key order does not matter, extra fields (a whole node, a condenses marker) are ignored.
    const reordered = { blocks: [{ text: 'hi', kind: 'text' }], role: 'user' } as unknown as Turn;
    expect(hashNode({ at: 5, turn: reordered, parent: null, condenses: { firstKept: null } } as never)).toBe(
      hashNode({ parent: null, turn, at: 5 }),
    );
    expect(hashNode({ parent: 'p', turn, at: 5 })).not.toBe(hashNode({ parent: null, turn, at: 5 }));
    expect(hashNode({ parent: null, turn, at: 6 })).not.toBe(hashNode({ parent: null, turn, at: 5 }));
  });
});

describe('SessionGraph', () => {
  it('appends under the leaf, moves the leaf, and gives the path root to node', () => {
    const graph = new SessionGraph('s');
    expect(graph.leaf).toBeNull();
    const a = graph.append(user('hi'), 1);
    const b = graph.append(assistant('hello'), 2);
    expect(a).toEqual({ id: hashNode({ parent: null, turn: user('hi'), at: 1 }), parent: null, turn: user('hi'), at: 1 });
    expect(b.parent).toBe(a.id);
    expect(graph.leaf).toBe(b.id);
    expect(graph.pathTo(b.id)).toEqual([user('hi'), assistant('hello')]);
    expect(graph.nodesTo(b.id).map((n) => n.id)).toEqual([a.id, b.id]);
    expect(graph.size).toBe(2);
  });

  it('returns the existing node when the same turn is appended with the same parent and time', () => {
    const graph = new SessionGraph('s');
    const a = graph.append(user('hi'), 1);
    graph.branchFrom(a.id);
    const b1 = graph.append(assistant('hello'), 2);
    graph.branchFrom(a.id);
    expect(graph.add(assistant('hello'), 2)).toEqual({ node: b1, added: false });
    graph.branchFrom(a.id);
    expect(graph.append(assistant('hello'), 2)).toBe(b1);
    expect(graph.size).toBe(2);
    expect(graph.children(a.id)).toEqual([b1]);
  });

  it('forks after branchFrom and exposes what a tree view needs', () => {
    const graph = new SessionGraph('s');
    const a = graph.append(user('hi'), 1);
    const b = graph.append(assistant('hello'), 2);
    graph.branchFrom(a.id);
    expect(graph.leaf).toBe(a.id);
    const c = graph.append(assistant('hey'), 3);
    expect(c.parent).toBe(a.id);
    expect(graph.children(null)).toEqual([a]);
    expect(graph.children(a.id)).toEqual([b, c]);
    expect(graph.children(b.id)).toEqual([]);
    expect(graph.tips()).toEqual([b, c]);
    expect(graph.node(c.id)).toBe(c);
    expect(graph.has('nope')).toBe(false);
    expect(graph.pathTo(b.id)).toEqual([user('hi'), assistant('hello')]);
    expect(graph.resume(b.id)).toEqual([user('hi'), assistant('hello')]);
    expect(graph.leaf).toBe(b.id);
  });

  it('throws UnknownNodeError for ids it does not hold, and changes nothing', () => {
    const graph = new SessionGraph('s');
    const a = graph.append(user('hi'), 1);
    for (const call of [
      () => graph.pathTo('x'),
      () => graph.branchFrom('x'),
      () => graph.resume('x'),
      () => graph.children('x'),
      () => graph.contextTo('x'),
    ]) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(UnknownNodeError.isInstance(caught)).toBe(true);
      expect((caught as UnknownNodeError).nodeId).toBe('x');
    }
    expect(graph.leaf).toBe(a.id);
  });

  it('refuses turns that could not be stored or reloaded, with InvalidTurnError', () => {
    const graph = new SessionGraph('s');
    const bad: unknown[] = [
      { role: 'system', blocks: [] },
      { role: 'user' },
      { role: 'user', blocks: [{ kind: 'image' }] },
      { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'c', name: 'n', input: undefined }] }, // input would vanish in JSON
      { role: 'user', blocks: [{ kind: 'tool_result', callId: 'c', content: 'x', isError: 'yes' }] },
    ];
    for (const turn of bad) expect(() => graph.append(turn as Turn, 1)).toThrow(InvalidTurnError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => graph.append(toolCall('c', 'n', cyclic), 1)).toThrow(InvalidTurnError);
    const throwing = {
      get value(): never {
        throw new Error('no value');
      },
    };
    expect(() => graph.append(toolCall('c', 'n', throwing), 1)).toThrow(InvalidTurnError);
    expect(() => graph.append(user('x'), Number.NaN)).toThrow(InvalidTurnError);
    expect(graph.size).toBe(0);
    expect(graph.leaf).toBeNull();
  });

  it('stores a copy: mutating the caller turn afterwards changes neither content nor id', () => {
    const graph = new SessionGraph('s');
    const turn = toolCall('c1', 'notes.search', { query: 'a' });
    const node = graph.append(turn, 1);
    (turn.blocks[1] as { input: unknown }).input = { query: 'changed' };
    expect(graph.node(node.id)!.turn).toEqual(toolCall('c1', 'notes.search', { query: 'a' }));
    expect(hashNode(graph.node(node.id)!)).toBe(node.id);
  });

  describe('resume with condensation', () => {
    // 1..6 are condensed into S, which keeps 5..6 verbatim; 7..8 come after the summary.
    function condensed() {
      const graph = new SessionGraph('s');
      const turns = [
        user('1'),
        toolCall('c1', 'fs.read', { path: 'a' }),
        toolResult('c1', 'file a'),
        assistant('4'),
        user('5'),
        assistant('6'),
      ];
      const nodes = turns.map((turn, i) => graph.append(turn, i));
      const s = graph.append(summary('turns 1-4'), 10, { condenses: { firstKept: nodes[4].id } });
      const seven = graph.append(user('7'), 11);
      const eight = graph.append(assistant('8'), 12);
      return { graph, turns, nodes, s, seven, eight };
    }

    it('rebuilds [summary, kept tail, turns after] while pathTo keeps everything', () => {
      const { graph, turns, nodes, s, eight } = condensed();
      expect(s.condenses).toEqual({ firstKept: nodes[4].id });
      expect(s.id).toBe(hashNode({ parent: nodes[5].id, turn: summary('turns 1-4'), at: 10 })); // the marker is not hashed
      const expected = [summary('turns 1-4'), user('5'), assistant('6'), user('7'), assistant('8')];
      graph.branchFrom(nodes[0].id);
      expect(graph.contextTo(eight.id)).toEqual(expected);
      expect(graph.leaf).toBe(nodes[0].id); // contextTo does not move the leaf
      expect(graph.resume(eight.id)).toEqual(expected);
      expect(graph.leaf).toBe(eight.id);
      expect(graph.pathTo(eight.id)).toEqual([...turns, summary('turns 1-4'), user('7'), assistant('8')]);
      expect(graph.contextTo(s.id)).toEqual([summary('turns 1-4'), user('5'), assistant('6')]);
      expect(graph.contextTo(nodes[5].id)).toEqual(turns); // before the summary nothing is condensed
    });

    it('lets the latest summary win and leaves older summaries inside its kept tail out', () => {
      const { graph, seven, eight } = condensed();
      const nine = graph.append(user('9'), 13);
      const s2 = graph.append(summary('up to 6'), 14, { condenses: { firstKept: seven.id } });
      const ten = graph.append(assistant('10'), 15);
      expect(graph.resume(ten.id)).toEqual([summary('up to 6'), user('7'), assistant('8'), user('9'), assistant('10')]);
      // A summary that keeps no tail.
      graph.append(summary('everything'), 16, { condenses: { firstKept: null } });
      expect(graph.contextTo(graph.leaf!)).toEqual([summary('everything')]);
      // A kept tail reaching back across the older summary S skips S's turn.
      graph.branchFrom(ten.id);
      const s3 = graph.append(summary('1-4 again'), 17, { condenses: { firstKept: graph.nodesTo(ten.id)[4].id } });
      expect(graph.contextTo(s3.id)).toEqual([
        summary('1-4 again'),
        user('5'),
        assistant('6'),
        user('7'),
        assistant('8'),
        user('9'),
        assistant('10'),
      ]);
      expect(eight.parent).toBe(seven.id);
      expect(nine.parent).toBe(eight.id);
      expect(s2.parent).toBe(nine.id);
    });

    it('costs the turns since the last condensation, not the depth of the session', () => {
      const graph = new SessionGraph('s');
      for (let i = 0; i < 2_000; i++) graph.append(user(`turn ${i}`), i);
      const keep = graph.append(user('kept'), 5_000);
      graph.append(summary('2000 turns'), 5_001, { condenses: { firstKept: keep.id } });
      const last = graph.append(assistant('after'), 5_002);
      // Remove the deep history from the map behind the graph's back: a walk past the kept tail would now fail.
      const nodes = (graph as unknown as { nodes: Map<string, unknown> }).nodes;
      for (const node of graph.nodesTo(keep.id).slice(0, -1)) nodes.delete(node.id);
      expect(graph.contextTo(last.id)).toEqual([summary('2000 turns'), user('kept'), assistant('after')]);
    });

    it('refuses a marker whose firstKept is not on the path, with BrokenCompactionError', () => {
      const graph = new SessionGraph('s');
      const a = graph.append(user('a'), 1);
      const b = graph.append(assistant('b'), 2);
      graph.branchFrom(a.id);
      graph.append(assistant('c'), 3);
      expect(() => graph.append(summary('x'), 4, { condenses: { firstKept: b.id } })).toThrow(BrokenCompactionError);
      expect(() => graph.append(summary('x'), 4, { condenses: { firstKept: 'missing' } })).toThrow(BrokenCompactionError);
      expect(graph.size).toBe(3);
    });
  });

  describe('restore and fromRecords', () => {
    function history() {
      const graph = new SessionGraph('s');
      const a = graph.append(user('a'), 1);
      const b = graph.append(assistant('b'), 2);
      graph.branchFrom(a.id);
      const c = graph.append(assistant('c'), 3);
      graph.branchFrom(b.id);
      return { records: recordsOf(graph), a, b, c };
    }

    it('rebuilds the same graph and leaf', () => {
      const { records, a, b, c } = history();
      const graph = SessionGraph.fromRecords('s', records);
      expect(graph.leaf).toBe(b.id);
      expect(graph.whole).toBe(true);
      expect(graph.children(a.id)).toEqual([b, c]);
    });

    it('applies records as a load replays them: nodes as they are, head moves, starts counted', () => {
      const { records, a, b, c } = history();
      const graph = new SessionGraph('s');
      graph.apply(records.slice(0, 2));
      expect(graph.leaf).toBe(b.id);
      graph.apply([...records, { type: 'started', callIds: ['call-1', 'call-1'] }, { type: 'head', leaf: c.id }]);
      expect(graph.size).toBe(3);
      expect(graph.node(c.id)).toBe(c);
      expect(graph.leaf).toBe(c.id);
      expect(graph.children(a.id)).toEqual([b, c]);
      expect(graph.startsOf('call-1')).toBe(2);
      // A node applied again (an append retried) stays one node.
      graph.apply(records);
      expect(graph.size).toBe(3);
      expect(graph.leaf).toBe(b.id);
    });

    it('attaches records that arrive before their parent', () => {
      const { records, b, c } = history();
      const nodes = records.filter((r) => r.type === 'node').reverse();
      const graph = SessionGraph.fromRecords('s', [...nodes, { type: 'head', leaf: c.id }]);
      expect(graph.size).toBe(3);
      expect(graph.pathTo(b.id)).toEqual([user('a'), assistant('b')]);
    });

    it('loads a node record written twice (a retried persist) as one node', () => {
      const { records, a, b, c } = history();
      const nodes = records.filter((r) => r.type === 'node');
      const graph = SessionGraph.fromRecords('s', [...records, ...nodes, { type: 'head', leaf: b.id }]);
      expect(graph.size).toBe(3);
      expect(graph.children(a.id)).toEqual([b, c]);
      expect(graph.leaf).toBe(b.id);
    });

    it('reports orphans and a leaf that names no node; fromRecords refuses them', () => {
      const { records, a, b, c } = history();
      const withoutA = records.filter((r) => !(r.type === 'node' && r.node.id === a.id));
      const restored = SessionGraph.restore('s', withoutA);
      expect(restored.graph.size).toBe(0);
      expect(restored.orphans.map((o) => [o.id, o.parent])).toEqual([
        [b.id, a.id],
        [c.id, a.id],
      ]);
      expect(restored.leafFallback).toEqual({ recorded: b.id, restored: null });
      expect(() => SessionGraph.fromRecords('s', withoutA)).toThrow(SessionIntegrityError);
      const unknownHead: SessionRecord[] = [...records, { type: 'head', leaf: 'nowhere' }];
      expect(SessionGraph.restore('s', unknownHead).leafFallback).toEqual({ recorded: 'nowhere', restored: b.id });
    });

    /** 1..4, then a summary keeping 3..4, then 5..6; a branch 2b forks off 2. */
    function compactedHistory() {
      const graph = new SessionGraph('s');
      const [one, two] = [graph.append(user('1'), 1), graph.append(assistant('2'), 2)];
      const twoB = graph.append(user('2b'), 3);
      graph.branchFrom(two.id);
      const [three, four] = [graph.append(user('3'), 4), graph.append(assistant('4'), 5)];
      const s = graph.append(summary('1-2'), 6, { condenses: { firstKept: three.id } });
      const [five, six] = [graph.append(user('5'), 7), graph.append(assistant('6'), 8)];
      return { records: recordsOf(graph), one, two, twoB, three, four, s, five, six };
    }
    const without = (records: SessionRecord[], id: string) => records.filter((r) => !(r.type === 'node' && r.node.id === id));

    it('keeps the leaf when the damage lies above the latest condensation, with the intact part of its path', () => {
      const { records, one, two, twoB, three, six } = compactedHistory();
      const restored = SessionGraph.restore('s', without(records, one.id));
      expect(restored.leafFallback).toBeNull();
      expect(restored.graph.leaf).toBe(six.id);
      expect(restored.graph.resume(six.id)).toEqual([summary('1-2'), user('3'), assistant('4'), user('5'), assistant('6')]);
      // The live path is kept as far back as it is intact; the branch off the lost history is an orphan.
      expect(restored.graph.pathTo(six.id)[0]).toEqual(assistant('2'));
      expect(restored.orphans.map((orphan) => orphan.id)).toEqual([twoB.id]);
      // A node whose own context runs into the gap says so instead of returning a cut context.
      expect(() => restored.graph.contextTo(three.id)).toThrow(MissingHistoryError);
      expect(() => restored.graph.contextTo(three.id)).toThrow(new RegExp(`needs node ${one.id}`));
      expect(restored.graph.has(two.id)).toBe(true);
    });

    it('falls back when a node of the kept tail is lost, as for any node the context needs', () => {
      const { records, three, four, six } = compactedHistory();
      const restored = SessionGraph.restore('s', without(records, four.id));
      expect(restored.leafFallback).toEqual({ recorded: six.id, restored: three.id });
      expect(restored.graph.resume(three.id)).toEqual([user('1'), assistant('2'), user('3')]);
    });

    it('rejects a summary whose firstKept is not an ancestor, like a damaged record, and falls back before it', () => {
      const { records, s, four, five, six } = compactedHistory();
      const damaged = records.map((r) =>
        r.type === 'node' && r.node.id === s.id
          ? { type: 'node' as const, node: { ...r.node, condenses: { firstKept: 'f'.repeat(64) } } }
          : r,
      );
      const restored = SessionGraph.restore('s', damaged);
      expect(restored.rejected).toEqual([
        {
          id: s.id,
          index: damaged.findIndex((r) => r.type === 'node' && r.node.id === s.id),
          reason: expect.stringMatching(/not one of its ancestors/),
        },
      ]);
      expect(restored.graph.has(s.id)).toBe(false);
      expect(restored.orphans.map((orphan) => [orphan.id, orphan.parent])).toEqual([
        [five.id, s.id],
        [six.id, five.id],
      ]);
      expect(restored.leafFallback).toEqual({ recorded: six.id, restored: four.id });
      expect(() => SessionGraph.fromRecords('s', damaged)).toThrow(/not one of its ancestors/);
    });
  });
});
