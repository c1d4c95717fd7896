// contextFromOptions: runAgent's context options (a manager, or memory/recall/remember/lazyToolset on
// their own) wired without any vendor: what runAgent drives, checked here on the manager itself.
import { describe, expect, it } from 'vitest';
import { contextFromOptions } from '../../src/context/from-options.js';
import { createContextManager } from '../../src/context/index.js';
import type { PreparedContext } from '../../src/context/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import type { AgentPart } from '../../src/parts/index.js';
import { lazyToolset, SEARCH_TOOLS } from '../../src/tools/index.js';

const window = { maxTokens: 10_000, reserve: 1_000 };
const tools = [
  { name: 'billing.refund', description: 'Refund a payment.', inputSchema: { type: 'object' } },
  { name: 'weather.forecast', description: 'Weather forecast for a city.', inputSchema: { type: 'object' } },
];
const turn = { prompt: 'How does Acme pay?', messages: [] };

describe('contextFromOptions', () => {
  it('uses the manager given and passes its reports on as they are, ignoring memory, remember and lazyToolset', async () => {
    const context = createContextManager({ budget: { maxTokens: 100, count: (t) => t.length }, sources: [] });
    const memory = createMemoryStore();
    const wired = contextFromOptions({ context, memory, remember: () => ['never'], lazyToolset: lazyToolset(tools) }, window);
    expect(wired.manager).toBe(context);
    const part: AgentPart = { type: 'context', source: 'memory', op: 'loaded', tools: ['x'] };
    expect(wired.parts(part)).toEqual([part]);
  });

  it('has no manager when no context option is set, and leaves every part alone', () => {
    const wired = contextFromOptions({}, window);
    expect(wired.manager).toBeUndefined();
    expect(wired.parts({ type: 'text', text: 'hi' })).toEqual([{ type: 'text', text: 'hi' }]);
  });

  it('builds a manager of memory and the lazy toolset within the window, reporting as the standalone options do', async () => {
    const memory = createMemoryStore();
    await memory.save('Acme pays by bank transfer');
    const lazy = lazyToolset(tools);
    const wired = contextFromOptions({ memory, remember: () => ['Acme pays monthly', 'Acme is in Lyon'], lazyToolset: lazy }, window);
    const manager = wired.manager!;
    const partsOf = (reports: unknown[]) => reports.flatMap((report) => wired.parts(report as AgentPart));

    const prepared = (await manager.prepare(turn)) as PreparedContext;
    expect(prepared.tokens).toMatchObject({ limit: 9_000 });
    expect(prepared.tools?.map((t) => t.name)).toEqual([SEARCH_TOOLS]);
    expect(prepared.system).toContain('billing_refund');
    // One recalled part for the recall, not a context part.
    expect(partsOf(prepared.parts)).toEqual([
      { type: 'memory', op: 'recalled', records: [expect.objectContaining({ text: 'Acme pays by bank transfer' })] },
    ]);

    // A search loads tools for the next call; its report is left out (the search's own tool part says it all).
    const handled = await manager.handle(SEARCH_TOOLS, { query: 'refund' }, turn);
    expect(handled?.tools?.map((t) => t.name)).toEqual([SEARCH_TOOLS, 'billing_refund']);
    expect(partsOf(handled!.parts)).toEqual([]);
    expect(lazy.loaded()).toEqual(['billing.refund']);

    // One saved part per saved fact.
    const saved = partsOf(await manager.commit({ ...turn, text: 'By transfer.' }));
    expect(saved.map((part) => part.type === 'memory' && part.records.map((r) => r.text))).toEqual([
      ['Acme pays monthly'],
      ['Acme is in Lyon'],
    ]);
  });

  it('reports nothing for a recall the window cannot hold, and sends none of it', async () => {
    const memory = createMemoryStore();
    await memory.save(`Acme pays by bank transfer ${'and more detail '.repeat(200)}`);
    const wired = contextFromOptions({ memory }, { maxTokens: 200, reserve: 100 });
    const prepared = await wired.manager!.prepare(turn);
    expect(prepared.system).toBe('');
    expect(prepared.parts.map((p) => p.op)).toEqual(['skipped']);
    expect(prepared.parts.flatMap((p) => wired.parts(p as AgentPart))).toEqual([]);
  });
});
