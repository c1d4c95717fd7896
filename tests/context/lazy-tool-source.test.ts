import { describe, expect, it } from 'vitest';
import { createContextManager, lazyToolSource, memorySource } from '../../src/context/index.js';
import type { ContextTurn } from '../../src/context/index.js';
import { createMemoryStore } from '../../src/memory/index.js';
import { SEARCH_TOOLS } from '../../src/tools/index.js';
import { ToolError } from '../../src/entries/errors.js';
import type { AnthropicToolSpec } from '../../src/tools/index.js';
import type { ModelTool } from '../../src/runtime/contract/model.js';

const schema = { type: 'object' };
const spec = (name: string, description: string): AnthropicToolSpec => ({ name, description, input_schema: schema });
const catalogue = [
  spec('notes.list', 'List the notes.'),
  spec('billing.createInvoice', 'Create an invoice for a customer.'),
  spec('billing.refund', 'Refund a payment.'),
  spec('weather.forecast', 'Weather forecast for a city.'),
];
const count = (text: string) => Math.ceil(text.length / 4);
const turn: ContextTurn = { prompt: 'bill acme', messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'bill acme' }] }] };
const names = (tools: ModelTool[] | null) => tools?.map((t) => t.name);

function manager(pin = ['notes.list']) {
  const tools = lazyToolSource(catalogue, { pin, k: 2 });
  return {
    tools,
    context: createContextManager({ budget: { maxTokens: 50_000, count }, sources: [memorySource(createMemoryStore()), tools] }),
  };
}

describe('lazyToolSource', () => {
  it("is named 'tools' and owns the tool list: search_tools plus the pinned tools, with the menu in the system prompt", async () => {
    const { tools, context } = manager();
    expect(tools.name).toBe('tools');
    const prepared = await context.prepare(turn);
    expect(names(prepared.tools)).toEqual([SEARCH_TOOLS, 'notes_list']);
    expect(prepared.metaTools).toEqual([SEARCH_TOOLS]);
    expect(prepared.system).toBe(tools.toolset.menu);
    expect(prepared.system).toContain('billing_createInvoice');
    expect(prepared.nameMap.get('billing_createInvoice')).toBe('billing.createInvoice');
  });

  it('loads the tools a search finds for the next model call and reports them by original name', async () => {
    const { context } = manager();
    const handled = await context.handle(SEARCH_TOOLS, { query: 'create invoice' });
    expect(handled?.source).toBe('tools');
    expect(handled?.result).toMatchObject({ found: [{ name: 'billing_createInvoice', description: 'Create an invoice for a customer.' }] });
    expect(handled?.parts).toEqual([{ type: 'context', source: 'tools', op: 'loaded', tools: ['billing.createInvoice'] }]);
    expect(names(handled!.tools)).toEqual([SEARCH_TOOLS, 'notes_list', 'billing_createInvoice']);
    expect(names((await context.prepare(turn)).tools)).toEqual([SEARCH_TOOLS, 'notes_list', 'billing_createInvoice']);
  });

  it('reports no part for a search that loads nothing', async () => {
    const { context } = manager();
    const handled = await context.handle(SEARCH_TOOLS, { query: 'telescope' });
    expect(handled?.result).toMatchObject({ found: [] });
    expect(handled?.parts).toEqual([]);
  });

  it('keeps pinned tools present on every call, whatever is loaded', async () => {
    const { context } = manager(['notes.list', 'weather.forecast']);
    for (const query of ['invoice', 'refund payment', 'notes weather']) {
      const handled = await context.handle(SEARCH_TOOLS, { query });
      expect(names(handled!.tools)).toEqual(expect.arrayContaining(['notes_list', 'weather_forecast']));
    }
  });

  it('leaves ordinary tool calls to the loop and answers malformed searches with a ToolError', async () => {
    const { context } = manager();
    expect(await context.handle('notes_list', {})).toBeNull();
    await expect(context.handle(SEARCH_TOOLS, { q: 'x' })).rejects.toSatisfy((e: unknown) => ToolError.isInstance(e));
  });
});
