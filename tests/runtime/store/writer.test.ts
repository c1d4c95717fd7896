// SessionWriter: the records a graph gained, handed to the store in the order a load replays them,
// and put back in front of newer ones when an append fails.
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../../src/runtime/contract/index.js';
import { MemorySessionStore, SessionWriter, type SessionStoreLike } from '../../../src/runtime/store/index.js';
import { assistant, user } from './helpers.js';

/** A memory store whose appends are recorded, and fail (writing nothing) while `failing` is set. */
function recording() {
  const store = new MemorySessionStore();
  const appends: SessionRecord[][] = [];
  const state = { failing: false };
  const wrapped: SessionStoreLike = {
    acquire: (id) => store.acquire(id),
    read: (id) => store.read(id),
    release: (lease) => store.release(lease),
    append: async (lease, records) => {
      if (state.failing) throw new Error('the disk is full');
      appends.push([...records]);
      return store.append(lease, records);
    },
  };
  return { store: wrapped, appends, state };
}

describe('SessionWriter', () => {
  it('appends new nodes then one head, a lone head for a leaf moved by itself, and nothing when nothing changed', async () => {
    const { store, appends } = recording();
    const writer = await SessionWriter.open(store, 's');
    const a = writer.append(user('a'), 1);
    const b = writer.append(assistant('b'), 2);
    await writer.persist();
    expect(appends.at(-1)).toEqual([
      { type: 'node', node: a },
      { type: 'node', node: b },
      { type: 'head', leaf: b.id },
    ]);
    expect(writer.hasPending).toBe(false);
    await writer.persist();
    expect(appends).toHaveLength(1);

    writer.graph.branchFrom(a.id); // a head move with no new turn is still a change
    expect(writer.hasPending).toBe(true);
    await writer.persist();
    expect(appends.at(-1)).toEqual([{ type: 'head', leaf: a.id }]);
    // The same turn, parent and time again is the node the graph holds: no second record.
    writer.graph.branchFrom(a.id);
    expect(writer.append(assistant('b'), 2)).toBe(b);
    writer.markStarted(['call-1']);
    await writer.close();
    expect(appends.at(-1)).toEqual([
      { type: 'started', callIds: ['call-1'] },
      { type: 'head', leaf: b.id },
    ]);
  });

  it('puts the records of a failed append back in front of newer ones, and writes a head again', async () => {
    const { store, appends, state } = recording();
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('a'), 1);
    await writer.persist();
    const c = writer.append(user('c'), 3);
    writer.markStarted(['call-1']);
    state.failing = true;
    await expect(writer.persist()).rejects.toThrow(/disk is full/);
    const d = writer.append(assistant('d'), 4);
    writer.markStarted(['call-2']);
    state.failing = false;
    await writer.persist();
    expect(appends.at(-1)).toEqual([
      { type: 'node', node: c },
      { type: 'node', node: d },
      { type: 'started', callIds: ['call-1', 'call-2'] },
      { type: 'head', leaf: d.id },
    ]);
    await writer.close();
  });

  it('keeps the lease and the records when closing fails, so close can be called again', async () => {
    const { store, state } = recording();
    const writer = await SessionWriter.open(store, 's');
    writer.append(user('kept'), 1);
    state.failing = true;
    await expect(writer.close()).rejects.toThrow(/disk is full/);
    await expect(SessionWriter.open(store, 's')).rejects.toMatchObject({ name: 'SessionLockedError' });
    state.failing = false;
    await writer.close();
    const again = await SessionWriter.open(store, 's');
    expect(again.graph.pathTo(again.graph.leaf!)).toEqual([user('kept')]);
    await again.close();
  });

  it('opens nothing when the load fails: the lease is handed back', async () => {
    const store = new MemorySessionStore();
    const failingRead: SessionStoreLike = {
      acquire: (id) => store.acquire(id),
      read: () => Promise.reject(new Error('unreadable')),
      append: (lease, records) => store.append(lease, records),
      release: (lease) => store.release(lease),
    };
    await expect(SessionWriter.open(failingRead, 's')).rejects.toThrow(/unreadable/);
    await (await SessionWriter.open(store, 's')).close();
  });
});
