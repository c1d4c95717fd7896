import { describe, expect, it } from 'vitest';
import { ContextInputError, ContextSourceError, createContextManager } from '../../src/context/index.js';
import type { ContextSource, ContextTurn, Loaded } from '../../src/context/index.js';
import { ToolError, ToolNameCollisionError } from '../../src/entries/errors.js';
import type { Turn } from '../../src/runtime/contract/turn.js';

// One token per character keeps the budget arithmetic readable.
const count = (text: string) => text.length;
const messages: Turn[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }];
const messageTokens = JSON.stringify(messages).length;
const turn: ContextTurn = { prompt: 'hi', messages };

/** A source that contributes fixed text and logs when it is asked. */
function textSource(name: string, text: string, log: string[] = []): ContextSource {
  return {
    name,
    select: () => {
      log.push(name);
      return { op: 'recalled', text, records: [] } satisfies Loaded;
    },
  };
}

const spec = (name: string) => ({ name, description: `${name} tool`, inputSchema: { type: 'object' } });

describe('createContextManager prepare', () => {
  it('asks the sources in order and joins their selections in that order', async () => {
    const log: string[] = [];
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [textSource('first', 'AAA', log), textSource('second', 'BBB', log)],
    });
    const prepared = await manager.prepare(turn);
    expect(log).toEqual(['first', 'second']);
    expect(prepared.system).toBe('AAA\n\nBBB');
    expect(prepared.parts).toEqual([
      { type: 'context', source: 'first', op: 'recalled', records: [] },
      { type: 'context', source: 'second', op: 'recalled', records: [] },
    ]);
    expect(prepared.skipped).toEqual([]);
    expect(prepared.tokens).toEqual({ used: messageTokens + 6, limit: 10_000 });
  });

  it("reports the sources' system texts as stableSystem and the selections that fit as selectedSystem", async () => {
    const menu: ContextSource = { name: 'menu', system: () => 'MENU' };
    const rules: ContextSource = { name: 'rules', system: () => 'RULES' };
    const manager = createContextManager({
      budget: { maxTokens: messageTokens + 20, count },
      sources: [textSource('recall', 'AAA'), menu, textSource('big', 'B'.repeat(50)), rules],
    });
    const prepared = await manager.prepare(turn);
    expect(prepared.stableSystem).toBe('MENU\n\nRULES');
    expect(prepared.selectedSystem).toBe('AAA');
    expect(prepared.system).toBe('MENU\n\nRULES\n\nAAA');
  });

  it('skips a selection that would pass maxTokens - reserve, reports its cost, and still fits later ones', async () => {
    const limit = messageTokens + 50;
    const manager = createContextManager({
      budget: { maxTokens: limit + 100, reserve: 100, count },
      sources: [textSource('small', 'x'.repeat(30)), textSource('large', 'y'.repeat(30)), textSource('tiny', 'z'.repeat(20))],
    });
    const prepared = await manager.prepare(turn);
    expect(prepared.system).toBe(`${'x'.repeat(30)}\n\n${'z'.repeat(20)}`);
    expect(prepared.parts.map((p) => `${p.source}:${p.op}`)).toEqual(['small:recalled', 'large:skipped', 'tiny:recalled']);
    expect(prepared.parts[1]).toEqual({ type: 'context', source: 'large', op: 'skipped', records: [], tokens: 30 });
    expect(prepared.skipped).toEqual([{ source: 'large', op: 'recalled', records: [], tokens: 30 }]);
    expect(prepared.tokens).toEqual({ used: limit, limit });
  });

  it('counts the messages and all system text against the budget, but not tool schemas', async () => {
    const hugeSchema = { name: 'big', description: 'd', inputSchema: { type: 'object', description: 'q'.repeat(5000) } };
    const sources: ContextSource[] = [
      { name: 'menu', system: () => 'M'.repeat(10), tools: () => [hugeSchema] },
      textSource('memory', 'R'.repeat(10)),
    ];
    const roomy = createContextManager({ budget: { maxTokens: messageTokens + 5 + 10 + 10, count }, sources });
    const fits = await roomy.prepare({ ...turn, system: 'S'.repeat(5) });
    expect(fits.skipped).toEqual([]);
    expect(fits.system).toBe(`${'M'.repeat(10)}\n\n${'R'.repeat(10)}`);

    const longer: Turn[] = [...messages, { role: 'assistant', blocks: [{ kind: 'text', text: 'hello' }] }];
    const crowded = await roomy.prepare({ prompt: 'hi', messages: longer, system: 'S'.repeat(5) });
    expect(crowded.skipped.map((s) => s.source)).toEqual(['memory']);
    expect(crowded.system).toBe('M'.repeat(10));
  });

  it('hands each select what is left of the budget', async () => {
    const seen: number[] = [];
    const probe = (name: string): ContextSource => ({
      name,
      select: (_turn, budget) => {
        seen.push(budget.remaining);
        return { op: 'recalled', text: 'x'.repeat(10) };
      },
    });
    const manager = createContextManager({
      budget: { maxTokens: messageTokens + 100, reserve: 40, count },
      sources: [probe('a'), probe('b')],
    });
    await manager.prepare(turn);
    expect(seen).toEqual([60, 50]);
  });

  it('sends your own tools (tools: null) unless a source returns some; then that list is the whole list', async () => {
    const none = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [textSource('m', 'x'), { name: 'empty', tools: () => [] }],
    });
    expect((await none.prepare(turn)).tools).toBeNull();

    const owning = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [
        { name: 'a', tools: () => [spec('one')], metaTools: () => ['one'], nameMap: () => new Map([['one', 'ns.one']]) },
        { name: 'b', tools: () => [spec('two')] },
      ],
    });
    const prepared = await owning.prepare(turn);
    expect(prepared.tools?.map((t) => t.name)).toEqual(['one', 'two']);
    expect(prepared.metaTools).toEqual(['one']);
    expect([...prepared.nameMap]).toEqual([['one', 'ns.one']]);
  });

  it('refuses two sources offering the same tool name', async () => {
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [
        { name: 'a', tools: () => [spec('dup')] },
        { name: 'b', tools: () => [spec('dup')] },
      ],
    });
    await expect(manager.prepare(turn)).rejects.toBeInstanceOf(ToolNameCollisionError);
  });
});

describe('createContextManager handle', () => {
  it('routes a meta-tool call to the first source that answers, with its part and the refreshed tool list', async () => {
    const asked: string[] = [];
    let unlocked = false;
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [
        { name: 'quiet', handle: () => void asked.push('quiet') },
        {
          name: 'answers',
          tools: () => (unlocked ? [spec('finder'), spec('found')] : [spec('finder')]),
          handle: (name, input) => {
            asked.push('answers');
            if (name !== 'finder') return undefined;
            unlocked = true;
            return { result: { echoed: input }, event: { op: 'loaded', tools: ['found'] } };
          },
        },
        { name: 'late', handle: () => (asked.push('late'), { result: 'never' }) },
      ],
    });
    const handled = await manager.handle('finder', { query: 'x' });
    expect(asked).toEqual(['quiet', 'answers']);
    expect(handled).toEqual({
      source: 'answers',
      result: { echoed: { query: 'x' } },
      parts: [{ type: 'context', source: 'answers', op: 'loaded', tools: ['found'] }],
      tools: [spec('finder'), spec('found')],
    });
  });

  it('returns null when no source answers, so the loop runs the call as a normal tool', async () => {
    const manager = createContextManager({ budget: { maxTokens: 10_000, count }, sources: [{ name: 'a', handle: () => undefined }] });
    expect(await manager.handle('notes_list', {})).toBeNull();
  });

  it('lets a source error (a ToolError for the model) through unchanged', async () => {
    const manager = createContextManager({
      budget: { maxTokens: 10_000, count },
      sources: [
        {
          name: 'a',
          handle: () => {
            throw new ToolError('bad query');
          },
        },
      ],
    });
    await expect(manager.handle('x', {})).rejects.toSatisfy((e: unknown) => ToolError.isInstance(e));
  });
});

describe('createContextManager compact and commit', () => {
  it('compact returns the messages untouched without history, and runs history.compact with the budget when given', async () => {
    const plain = createContextManager({ budget: { maxTokens: 100, count }, sources: [] });
    expect(await plain.compact(messages)).toBe(messages);

    const summary: Turn = { role: 'user', blocks: [{ kind: 'text', text: '[condensed earlier context] they said hi' }] };
    const seen: unknown[] = [];
    const managed = createContextManager({
      budget: { maxTokens: 100, reserve: 10, count },
      sources: [],
      history: { compact: async (input, budget) => (seen.push(input, budget.maxTokens, budget.reserve), [summary]) },
    });
    expect(await managed.compact(messages)).toEqual([summary]);
    expect(seen).toEqual([messages, 100, 10]);
  });

  it('commit runs every source commit in order and returns their parts', async () => {
    const order: string[] = [];
    const manager = createContextManager({
      budget: { maxTokens: 100, count },
      sources: [
        { name: 'a', commit: (t) => (order.push(`a:${t.text}`), { op: 'saved', records: [] }) },
        { name: 'b', commit: () => (order.push('b'), null) },
        { name: 'c', commit: async () => (order.push('c'), { op: 'saved', records: [] }) },
      ],
    });
    const parts = await manager.commit({ ...turn, text: 'bye' });
    expect(order).toEqual(['a:bye', 'b', 'c']);
    expect(parts.map((p) => p.source)).toEqual(['a', 'c']);
  });
});

describe('createContextManager input checks', () => {
  const good = { maxTokens: 100, count };

  it('rejects a bad budget, duplicate or nameless sources and a bad history up front', () => {
    const bad: unknown[] = [
      { budget: { ...good, maxTokens: 0 }, sources: [] },
      { budget: { ...good, maxTokens: Number.POSITIVE_INFINITY }, sources: [] },
      { budget: { ...good, reserve: 100 }, sources: [] },
      { budget: { ...good, reserve: -1 }, sources: [] },
      { budget: { maxTokens: 100 }, sources: [] },
      { budget: good, sources: 'memory' },
      { budget: good, sources: [{ name: 'a' }, { name: 'a' }] },
      { budget: good, sources: [{}] },
      { budget: good, sources: [], history: {} },
      undefined,
    ];
    for (const opts of bad) expect(() => createContextManager(opts as never), JSON.stringify(opts)).toThrow(ContextInputError);
  });

  it('rejects a malformed turn and a counter that returns nonsense', async () => {
    const manager = createContextManager({ budget: good, sources: [textSource('a', 'x')] });
    await expect(manager.prepare({ prompt: 1, messages } as never)).rejects.toBeInstanceOf(ContextInputError);
    await expect(manager.prepare({ prompt: 'x' } as never)).rejects.toBeInstanceOf(ContextInputError);
    await expect(manager.commit(turn as never)).rejects.toThrow(/commit needs turn.text/);
    const broken = createContextManager({ budget: { maxTokens: 100, count: () => Number.NaN }, sources: [] });
    await expect(broken.prepare(turn)).rejects.toBeInstanceOf(ContextSourceError);
  });

  it('rejects a source that returns something unusable, naming it', async () => {
    const manager = createContextManager({
      budget: good,
      sources: [{ name: 'odd', select: () => ({ op: 'fetched', text: 'x' }) as never }],
    });
    await expect(manager.prepare(turn)).rejects.toThrow(/Source "odd" select returned/);
    const history = createContextManager({ budget: good, sources: [], history: { compact: () => 'nope' as never } });
    await expect(history.compact(messages)).rejects.toBeInstanceOf(ContextSourceError);
  });

  it("refuses a source's tool that is not a ModelTool, so no tool reaches the model without its schema", async () => {
    const prepare = (tool: unknown) =>
      createContextManager({ budget: good, sources: [{ name: 'legacy', tools: () => [tool] as never }] }).prepare(turn);
    // The Anthropic shape, as sources spoke it before: named, so the fix is plain.
    await expect(prepare({ name: 'old', description: 'd', input_schema: { type: 'object' } })).rejects.toThrow(
      /Source "legacy" tools\(\)\[0\] \("old"\) has no inputSchema object \(it has `input_schema`/,
    );
    await expect(prepare({ name: 'bare', description: 'd' })).rejects.toBeInstanceOf(ContextSourceError);
    await expect(prepare({ name: 'mute', inputSchema: {} })).rejects.toThrow(/has no string description/);
    await expect(prepare(null)).rejects.toThrow(/is not a tool/);
    await expect(
      createContextManager({ budget: good, sources: [{ name: 'odd', tools: () => 'all' as never }] }).prepare(turn),
    ).rejects.toThrow(/tools\(\) must return an array/);
  });
});
