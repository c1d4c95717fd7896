import { describe, expect, it } from 'vitest';
import { WriteBatches, type Settled } from '../../src/postgres/write-batches.js';

/** A flush that records each batch and answers when `release` is called. */
function recorder(answer: (item: number) => Settled<string> = (item) => ({ ok: true, value: `done ${item}` })) {
  const batches: number[][] = [];
  const waiting: Array<() => void> = [];
  const flush = (items: number[]) => {
    batches.push(items);
    return new Promise<Array<Settled<string>>>((resolve) => waiting.push(() => resolve(items.map(answer))));
  };
  return { batches, flush, release: () => waiting.splice(0).forEach((go) => go()) };
}

const turn = () => new Promise((done) => setImmediate(done));

describe('WriteBatches', () => {
  it('sends a lone write at once, in a batch of its own', async () => {
    const r = recorder();
    const batches = new WriteBatches(r.flush, { slots: 1, maxItems: 10, minItems: 1 });
    const done = batches.write(1);
    await turn();
    expect(r.batches).toEqual([[1]]);
    r.release();
    await expect(done).resolves.toBe('done 1');
  });

  it('joins the writes of one burst, and those that queue behind full slots, in arrival order', async () => {
    const r = recorder();
    const batches = new WriteBatches(r.flush, { slots: 1, maxItems: 10, minItems: 1 });
    const first = [1, 2, 3].map((i) => batches.write(i));
    await turn();
    const second = [4, 5].map((i) => batches.write(i));
    await turn();
    expect(r.batches).toEqual([[1, 2, 3]]); // the only slot is busy
    r.release();
    await Promise.all(first);
    await turn();
    expect(r.batches).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
    r.release();
    expect(await Promise.all(second)).toEqual(['done 4', 'done 5']);
  });

  it('spreads a burst over the free slots, at least `minItems` to a batch', async () => {
    const r = recorder();
    const batches = new WriteBatches(r.flush, { slots: 4, maxItems: 100, minItems: 3 });
    const all = Array.from({ length: 10 }, (_, i) => batches.write(i));
    await turn();
    expect(r.batches).toEqual([[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]);
    r.release();
    expect(await Promise.all(all)).toHaveLength(10);
    const few = [10, 11].map((i) => batches.write(i));
    await turn();
    expect(r.batches.slice(4)).toEqual([[10, 11]]); // two is below minItems: one batch, not two
    r.release();
    await Promise.all(few);
  });

  it('keeps at most `slots` batches in flight and `maxItems` items in a batch', async () => {
    const r = recorder();
    const batches = new WriteBatches(r.flush, { slots: 2, maxItems: 2, minItems: 1 });
    const all = [1, 2, 3, 4, 5, 6, 7].map((i) => batches.write(i));
    await turn();
    expect(r.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    while (r.batches.flat().length < 7) {
      r.release();
      await turn();
      await turn();
    }
    r.release();
    expect(r.batches).toEqual([[1, 2], [3, 4], [5, 6], [7]]);
    expect(await Promise.all(all)).toHaveLength(7);
  });

  it('fails only the item whose write failed; a failed flush fails its whole batch and not the next', async () => {
    const refused = new Error('item 2 refused');
    const r = recorder((item) => (item === 2 ? { ok: false, error: refused } : { ok: true, value: `done ${item}` }));
    const batches = new WriteBatches(r.flush, { slots: 1, maxItems: 10, minItems: 1 });
    const outcomes = [1, 2, 3].map((i) =>
      batches.write(i).then(
        (v) => v,
        (e: unknown) => e,
      ),
    );
    await turn();
    r.release();
    expect(await Promise.all(outcomes)).toEqual(['done 1', refused, 'done 3']);

    let fail = true;
    const broken = new Error('connection lost');
    const flaky = new WriteBatches<number, string>(
      async (items) => {
        if (fail) {
          fail = false;
          throw broken;
        }
        return items.map((i) => ({ ok: true, value: `done ${i}` }));
      },
      { slots: 1, maxItems: 10, minItems: 1 },
    );
    const lost = [1, 2].map((i) =>
      flaky.write(i).then(
        (v) => v,
        (e: unknown) => e,
      ),
    );
    expect(await Promise.all(lost)).toEqual([broken, broken]);
    await expect(flaky.write(3)).resolves.toBe('done 3');
  });
});
