import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../../src/providers/anthropic/index.js';
import { createAgent } from '../../../src/entries/runtime.js';
import type { RunEvent, ToolDefinition } from '../../../src/entries/runtime.js';
import { createContextManager, lazyToolSource, memorySource } from '../../../src/context/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { lazyToolset, mergeToolsets, SEARCH_TOOLS, toToolset } from '../../../src/tools/index.js';
import type { AgentPart } from '../../../src/parts/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { invoiceContext } from '../../support/invoice-context.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const schema = { type: 'object', properties: { customer: { type: 'string' } } };
function tools() {
  const invoices: unknown[] = [];
  const define = (name: string, description: string, execute: ToolDefinition['execute']): ToolDefinition => ({
    name,
    description,
    inputSchema: schema,
    execute,
  });
  const definitions = [
    define('notes.list', 'List the notes.', () => ['buy milk']),
    define('billing.createInvoice', 'Create an invoice for a customer.', (input) => (invoices.push(input), { invoice: 'INV-1' })),
    ...Array.from({ length: 30 }, (_, i) => define(`misc.tool${i}`, `Miscellaneous helper number ${i}.`, () => i)),
  ];
  const local = toToolset(definitions.slice(0, 1));
  const merged = mergeToolsets(local, toToolset(definitions.slice(1)));
  return { merged, local, invoices, definitions };
}

/** The model searches for the invoice tool, calls it, then answers. */
function scriptInvoiceTurn() {
  server.enqueue(
    reply.tools([{ name: SEARCH_TOOLS, input: { query: 'create invoice' }, id: 'toolu_search' }]),
    reply.tools([{ name: 'billing_createInvoice', input: { customer: 'acme' }, id: 'toolu_invoice' }]),
    reply.text('Invoiced Acme as INV-1.'),
  );
}

describe('a context manager driven by the loop', () => {
  it('runAgent({ context }): recalls memory, loads a searched tool for the next call, runs it by its original name, saves facts after', async () => {
    const { merged, local, invoices } = tools();
    const { memory, context } = await invoiceContext(merged.tools, local.names);
    scriptInvoiceTurn();

    const parts: AgentPart[] = [];
    for await (const part of runAgent({
      client: server.client(),
      model: 'm',
      tools: merged.tools,
      execute: merged.execute,
      prompt: 'Invoice Acme for May',
      system: 'You are helpful.',
      context,
    })) {
      parts.push(part);
    }

    const [first, second, third] = server.requests.map((r) => r.body);
    expect(systemText(first)).toContain('You are helpful.');
    expect(systemText(first)).toContain('- Invoices for Acme go to billing@acme.test');
    expect(first.tools.map((t: { name: string }) => t.name)).toEqual([SEARCH_TOOLS, 'notes_list']);
    expect(second.tools.map((t: { name: string }) => t.name)).toContain('billing_createInvoice');
    expect(third.messages[4].content).toMatchObject([
      { type: 'tool_result', tool_use_id: 'toolu_invoice', content: '{"invoice":"INV-1"}' },
    ]);
    expect(invoices).toEqual([{ customer: 'acme' }]);
    expect(
      parts
        .filter((p) => p.type !== 'text')
        .map((p) => (p.type === 'context' ? `context:${p.source}:${p.op}` : `${p.type}:${(p as { name: string }).name}`)),
    ).toEqual([
      'context:memory:recalled',
      `tool:${SEARCH_TOOLS}`,
      'context:tools:loaded',
      'tool:billing.createInvoice',
      'context:memory:saved',
    ]);
    expect(parts.find((p) => p.type === 'context' && p.op === 'loaded')).toMatchObject({ tools: ['billing.createInvoice'] });
    expect((await memory.search('Acme invoiced')).map((r) => r.text)).toContain('Acme was invoiced as INV-1');
  });

  it('runAgent without context: memory, recall and remember give memory parts; lazyToolset only its tool part', async () => {
    const { merged, local, invoices } = tools();
    const memory = createMemoryStore();
    await memory.save('Invoices for Acme go to billing@acme.test');
    const lazy = lazyToolset(merged.tools, { pin: local.names });
    scriptInvoiceTurn();

    const parts: AgentPart[] = [];
    for await (const part of runAgent({
      client: server.client(),
      model: 'm',
      tools: merged.tools,
      execute: merged.execute,
      prompt: 'Invoice Acme',
      memory,
      recall: { k: 3 },
      remember: ({ text }) => [text],
      lazyToolset: lazy,
    })) {
      parts.push(part);
    }

    expect(invoices).toEqual([{ customer: 'acme' }]);
    expect(systemText(server.requests[0].body)).toContain('Invoices for Acme');
    expect(
      parts
        .filter((p) => p.type !== 'text')
        .map((p) => (p.type === 'memory' ? `memory:${p.op}` : `${p.type}:${(p as { name: string }).name}`)),
    ).toEqual(['memory:recalled', `tool:${SEARCH_TOOLS}`, 'tool:billing.createInvoice', 'memory:saved']);
    expect(parts.find((p) => p.type === 'tool' && p.name === SEARCH_TOOLS)).toMatchObject({
      result: { found: [{ name: 'billing_createInvoice' }] },
    });
    expect(parts.at(-1)).toMatchObject({ type: 'memory', op: 'saved', records: [{ text: 'Invoiced Acme as INV-1.' }] });
  });

  it('createAgent({ context }): publishes the manager’s reports as context events around the run', async () => {
    const { merged, local, definitions } = tools();
    const memory = createMemoryStore();
    await memory.save('Invoices for Acme go to billing@acme.test');
    const context = createContextManager({
      budget: { maxTokens: 100_000, count: (text) => Math.ceil(text.length / 4) },
      sources: [memorySource(memory, { remember: () => ['Acme is a customer'] }), lazyToolSource(merged.tools, { pin: local.names })],
    });
    scriptInvoiceTurn();
    const agent = createAgent({ model: 'm', tools: definitions, context }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    const snapshot = await agent.submit('Invoice Acme');

    expect(snapshot.text).toBe('Invoiced Acme as INV-1.');
    expect(systemText(server.requests[0].body)).toContain('Invoices for Acme');
    expect(server.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual([SEARCH_TOOLS, 'notes_list']);
    const kinds = events
      .filter((e) => e.kind === 'context' || e.kind === 'tool_finished' || e.kind === 'settled')
      .map((e) => (e.kind === 'context' ? `context:${e.source}:${e.op}` : e.kind === 'tool_finished' ? `tool:${e.name}` : e.kind));
    expect(kinds).toEqual([
      'context:memory:recalled',
      `tool:${SEARCH_TOOLS}`,
      'context:tools:loaded',
      'tool:billing.createInvoice',
      'context:memory:saved',
      'settled',
    ]);
  });
});

/** The system prompt's text: with prompt caching it is sent as text blocks. */
function systemText(body: { system: Array<{ text: string }> }): string {
  return body.system.map((block) => block.text).join('\n\n');
}

describe('a context manager over a long history', () => {
  it('adopts a replaced history of 150,000 turns without overflowing the stack', async () => {
    const history = Array.from({ length: 150_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `m${i}` }) as const);
    // A history compactor that hands back a new array (here: everything but the oldest exchange).
    const context = createContextManager({
      budget: { maxTokens: 10_000_000, count: (text) => Math.ceil(text.length / 4) },
      sources: [],
      history: { compact: (messages) => messages.slice(2) },
    });
    server.enqueue(reply.text('Still here.'));

    const parts: AgentPart[] = [];
    for await (const part of runAgent({
      client: server.client(),
      model: 'claude-test',
      messages: [...history],
      prompt: 'and now?',
      context,
    }))
      parts.push(part);

    expect(
      parts
        .filter((p) => p.type === 'text')
        .map((p) => (p as { text: string }).text)
        .join(''),
    ).toBe('Still here.');
    const sent = server.requests[0].body.messages;
    expect(sent).toHaveLength(150_000 - 2 + 1);
    expect(sent[0].content).toEqual([{ type: 'text', text: 'm2' }]);
  }, 300_000);
});
