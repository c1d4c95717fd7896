// runAgent without a context manager: its own memory, recall, remember and lazyToolset options, end to
// end through the real @anthropic-ai/sdk and the loopback server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../../src/providers/anthropic/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { lazyToolset, SEARCH_TOOLS } from '../../../src/tools/index.js';
import type { AgentPart } from '../../../src/parts/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { catalogue, shape, systemOf, toolNames } from '../../support/context-wiring.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

async function collect(run: AsyncGenerator<AgentPart>): Promise<AgentPart[]> {
  const parts: AgentPart[] = [];
  for await (const part of run) parts.push(part);
  return parts;
}

describe('runAgent without context', () => {
  it('recalls memory as one recalled part and reports each saved fact as its own saved part', async () => {
    const memory = createMemoryStore();
    await memory.save('Acme pays by bank transfer');
    await memory.save('Acme wants invoices in euros');
    await memory.save('The office plant needs water');
    server.enqueue(reply.text('Acme pays by bank transfer, in euros.'));

    const parts = await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system: 'You are a billing assistant.',
        prompt: 'How does Acme pay its invoices?',
        memory,
        recall: { k: 2 },
        remember: ({ text }) => (text.includes('euros') ? ['Acme invoices: euros by transfer', '  ', 'Asked about Acme on Monday'] : []),
      }),
    );

    expect(shape(parts)).toEqual(['memory:recalled', 'memory:saved', 'memory:saved']);
    const recalled = parts[0] as Extract<AgentPart, { type: 'memory' }>;
    expect(recalled.records.map((r) => r.text).sort()).toEqual(['Acme pays by bank transfer', 'Acme wants invoices in euros']);
    const system = systemOf(server.requests[0].body);
    expect(system).toContain('- Acme pays by bank transfer');
    expect(system).not.toContain('office plant');
    expect(system.indexOf('You are a billing assistant.')).toBe(0);
    const saved = parts.filter((p): p is Extract<AgentPart, { type: 'memory' }> => p.type === 'memory' && p.op === 'saved');
    expect(saved.map((p) => p.records.map((r) => r.text))).toEqual([['Acme invoices: euros by transfer'], ['Asked about Acme on Monday']]);
    expect((await memory.all!()).map((r) => r.text)).toEqual(
      expect.arrayContaining(['Acme invoices: euros by transfer', 'Asked about Acme on Monday']),
    );
  });

  it('yields no memory part when nothing matched and remember picked nothing', async () => {
    const memory = createMemoryStore();
    await memory.save('Acme pays by bank transfer');
    server.enqueue(reply.text('Hello.'));

    const parts = await collect(
      runAgent({ client: server.client(), model: 'claude-test', prompt: 'Good morning', memory, remember: () => [] }),
    );

    expect(shape(parts)).toEqual([]);
    expect(server.requests[0].body.system).toBeUndefined();
  });

  it('answers search_tools with a tool part, and makes the found tool callable from the next model call on', async () => {
    const { merged, local, calls } = catalogue();
    const lazy = lazyToolset(merged.tools, { pin: local.names });
    server.enqueue(
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'create invoice' } }]),
      reply.tools([
        { name: 'billing_createInvoice', input: { customer: 'acme' } },
        { name: 'notes_list', input: {} },
      ]),
      reply.text('Invoiced.'),
    );

    const parts = await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system: 'Stable.',
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'Invoice Acme',
        lazyToolset: lazy,
      }),
    );

    expect(shape(parts)).toEqual([`tool:${SEARCH_TOOLS}`, 'tool:billing.createInvoice', 'tool:notes.list']);
    expect(parts[0]).toMatchObject({
      type: 'tool',
      name: SEARCH_TOOLS,
      input: { query: 'create invoice' },
      result: { found: [{ name: 'billing_createInvoice', description: 'Create an invoice for a customer.' }] },
    });
    expect(parts[0]).not.toHaveProperty('isError');
    expect(calls).toEqual([
      { name: 'billing.createInvoice', input: { customer: 'acme' } },
      { name: 'notes.list', input: {} },
    ]);

    const bodies = server.requests.map((r) => r.body);
    expect(bodies.map(toolNames)).toEqual([
      [SEARCH_TOOLS, 'notes_list'],
      [SEARCH_TOOLS, 'notes_list', 'billing_createInvoice'],
      [SEARCH_TOOLS, 'notes_list', 'billing_createInvoice'],
    ]);
    for (const body of bodies) {
      expect(systemOf(body).startsWith('Stable.')).toBe(true);
      expect(systemOf(body)).toContain('billing_createInvoice, billing_refund, misc_tool0');
    }
    expect(bodies[1].messages.at(-1).content[0]).toMatchObject({
      type: 'tool_result',
      content: expect.stringContaining('billing_createInvoice'),
    });
  });

  it('sends a malformed search back to the model as an error result, loading nothing', async () => {
    const { merged, local } = catalogue();
    const lazy = lazyToolset(merged.tools, { pin: local.names });
    server.enqueue(reply.tools([{ name: SEARCH_TOOLS, input: { q: 'invoice' } }]), reply.text('Sorry.'));

    const parts = await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'Invoice Acme',
        lazyToolset: lazy,
      }),
    );

    expect(parts[0]).toMatchObject({ type: 'tool', name: SEARCH_TOOLS, isError: true });
    expect(server.requests[1].body.messages.at(-1).content[0]).toMatchObject({ type: 'tool_result', is_error: true });
    expect(toolNames(server.requests[1].body)).toEqual([SEARCH_TOOLS, 'notes_list']);
    expect(lazy.loaded()).toEqual([]);
  });
});
