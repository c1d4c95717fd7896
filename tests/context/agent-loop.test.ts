import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContextManager, lazyToolSource } from '../../src/context/index.js';
import { mergeToolsets, SEARCH_TOOLS, toToolset } from '../../src/tools/index.js';
import type { ToolDefinition } from '../../src/runtime/contract/tool.js';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import { invoiceContext } from '../support/invoice-context.js';
import { driveTurn } from './drive-turn.js';

const schema = { type: 'object', properties: { customer: { type: 'string' } } };
let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

function setup() {
  const invoices: unknown[] = [];
  const define = (name: string, description: string, execute: ToolDefinition['execute']): ToolDefinition => ({
    name,
    description,
    inputSchema: schema,
    execute,
  });
  const local = toToolset([define('notes.list', 'List the notes.', () => ['buy milk'])]);
  const remote = toToolset([
    define('billing.createInvoice', 'Create an invoice for a customer.', (input) => (invoices.push(input), { invoice: 'INV-1' })),
    define('billing.refund', 'Refund a payment.', () => 'refunded'),
    ...Array.from({ length: 40 }, (_, i) => define(`misc.tool${i}`, `Miscellaneous helper number ${i}.`, () => i)),
  ]);
  const merged = mergeToolsets(local, remote);
  return { merged, local, invoices };
}

describe('a context manager driving an agent loop over the Anthropic SDK', () => {
  it('recalls memory, loads a searched tool for the next call, runs it by its original name, and saves facts after', async () => {
    const { merged, local, invoices } = setup();
    const { memory, context } = await invoiceContext(merged.tools, local.names);
    server.enqueue(
      reply.tools([{ name: SEARCH_TOOLS, input: { q: 'invoice' } }]),
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'create invoice' } }]),
      reply.tools([{ name: 'billing_createInvoice', input: { customer: 'acme' }, id: 'toolu_invoice' }]),
      reply.text('Invoiced Acme as INV-1.'),
    );

    const { parts, text } = await driveTurn({
      client: server.client(),
      context,
      toolset: merged,
      prompt: 'Invoice Acme for May',
      system: 'You are helpful.',
    });

    const [first, second, third] = server.requests.map((r) => r.body);
    expect(first.system).toContain('You are helpful.');
    expect(first.system).toContain('Relevant memory (use if helpful):\n- Invoices for Acme go to billing@acme.test');
    expect(first.system).toContain('misc_tool0');
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual([SEARCH_TOOLS, 'notes_list']);
    // The malformed search came back to the model as an error result it can correct.
    expect(second.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(second.tools.map((t: { name: string }) => t.name)).toEqual([SEARCH_TOOLS, 'notes_list']);
    expect(third.tools.map((t: { name: string }) => t.name)).toContain('billing_createInvoice');
    expect(invoices).toEqual([{ customer: 'acme' }]);
    expect(text).toBe('Invoiced Acme as INV-1.');

    expect(
      parts.map((p) => (p.type === 'context' ? `context:${p.source}:${p.op}` : p.type === 'tool' ? `tool:${p.name}` : p.type)),
    ).toEqual([
      'context:memory:recalled',
      `tool:${SEARCH_TOOLS}`,
      `tool:${SEARCH_TOOLS}`,
      'context:tools:loaded',
      'tool:billing.createInvoice',
      'context:memory:saved',
    ]);
    expect(parts.find((p) => p.type === 'context' && p.op === 'loaded')).toMatchObject({
      tools: expect.arrayContaining(['billing.createInvoice']),
    });
    expect((await memory.search('acme invoiced')).map((r) => r.text)).toContain('Acme was invoiced as INV-1');
  });

  it('keeps tools loaded in one turn callable in the next turn of the same conversation', async () => {
    const { merged, local } = setup();
    const context = createContextManager({
      budget: { maxTokens: 100_000, count: (text) => text.length },
      sources: [lazyToolSource(merged.tools, { pin: local.names })],
    });
    server.enqueue(reply.tools([{ name: SEARCH_TOOLS, input: { query: 'refund' } }]), reply.text('Found it.'), reply.text('Ready.'));
    const first = await driveTurn({ client: server.client(), context, toolset: merged, prompt: 'find refunds' });
    await driveTurn({ client: server.client(), context, toolset: merged, prompt: 'go on', history: first.messages });
    expect(server.requests[2].body.tools.map((t: { name: string }) => t.name)).toContain('billing_refund');
  });
});
