// runAgent({ context }) end to end through the real @anthropic-ai/sdk and the loopback server: the
// manager owns recall, tool loading and write-backs, and runAgent's own memory/lazy options are ignored.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../../src/providers/anthropic/index.js';
import { createContextManager, lazyToolSource, memorySource } from '../../../src/context/index.js';
import type { ContextSource } from '../../../src/context/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { lazyToolset, SEARCH_TOOLS, toToolset } from '../../../src/tools/index.js';
import type { AgentPart } from '../../../src/parts/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { invoiceContext } from '../../support/invoice-context.js';
import { catalogue, shape, systemOf, toolNames } from '../../support/context-wiring.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const count = (text: string) => Math.ceil(text.length / 4);

async function collect(run: AsyncGenerator<AgentPart>): Promise<AgentPart[]> {
  const parts: AgentPart[] = [];
  for await (const part of run) parts.push(part);
  return parts;
}

describe('runAgent({ context })', () => {
  it('lets the manager own recall, tool loading and write-backs, and ignores memory, recall, remember and lazyToolset', async () => {
    const { merged, local, calls } = catalogue();
    const { memory: managed, context } = await invoiceContext(merged.tools, local.names);
    // Everything below would show up in the request or the parts if runAgent used it.
    const ignoredMemory = createMemoryStore();
    await ignoredMemory.save('Acme invoices must be faxed, says the ignored store');
    const ignoredRemember: unknown[] = [];
    const ignoredLazy = lazyToolset(
      toToolset([{ name: 'weather.forecast', description: 'Create an invoice forecast.', inputSchema: {}, execute: () => 'sunny' }]).tools,
    );
    server.enqueue(
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'create invoice' } }]),
      reply.tools([{ name: 'billing_createInvoice', input: { customer: 'acme' } }]),
      reply.text('Invoiced Acme as INV-1.'),
    );

    const parts = await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system: 'You are a billing assistant.',
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'Invoice Acme for May',
        context,
        memory: ignoredMemory,
        recall: { k: 5 },
        remember: (turn) => (ignoredRemember.push(turn), ['should never be saved']),
        lazyToolset: ignoredLazy,
      }),
    );

    expect(shape(parts)).toEqual([
      'context:memory:recalled',
      `tool:${SEARCH_TOOLS}`,
      'context:tools:loaded',
      'tool:billing.createInvoice',
      'context:memory:saved',
    ]);
    expect(parts.find((p) => p.type === 'context' && p.op === 'loaded')).toMatchObject({ tools: ['billing.createInvoice'] });
    expect(parts.find((p) => p.type === 'tool' && p.name === SEARCH_TOOLS)).toMatchObject({
      result: { found: [{ name: 'billing_createInvoice' }] },
    });
    expect(calls).toEqual([{ name: 'billing.createInvoice', input: { customer: 'acme' } }]);

    const bodies = server.requests.map((r) => r.body);
    for (const body of bodies) {
      expect(systemOf(body)).toContain('- Invoices for Acme go to billing@acme.test');
      expect(systemOf(body)).not.toContain('faxed');
      expect(systemOf(body)).not.toContain('weather_forecast');
    }
    // The search went to the manager's source, not to the ignored lazy toolset.
    expect(ignoredLazy.loaded()).toEqual([]);
    expect(ignoredRemember).toEqual([]);
    expect((await ignoredMemory.all!()).map((r) => r.text)).toEqual(['Acme invoices must be faxed, says the ignored store']);
    expect((await managed.all!()).map((r) => r.text)).toContain('Acme was invoiced as INV-1');
  });

  it('sends the source’s tool list instead of the tools passed in: pinned tools on every call, a found tool from the next call on', async () => {
    const { merged, local } = catalogue();
    const context = createContextManager({
      budget: { maxTokens: 100_000, count },
      sources: [lazyToolSource(merged.tools, { pin: local.names })],
    });
    server.enqueue(
      reply.tools([{ name: 'notes_list', input: {} }]),
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'refund payment' } }]),
      reply.tools([{ name: 'billing_refund', input: {} }]),
      reply.text('Refunded.'),
    );

    await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'Refund Acme',
        context,
      }),
    );

    const lists = server.requests.map((r) => toolNames(r.body));
    expect(lists).toEqual([
      [SEARCH_TOOLS, 'notes_list'],
      [SEARCH_TOOLS, 'notes_list'],
      [SEARCH_TOOLS, 'notes_list', 'billing_refund'],
      [SEARCH_TOOLS, 'notes_list', 'billing_refund'],
    ]);
    // The 33 tools handed to runAgent never travel; the menu names them instead.
    expect(systemOf(server.requests[0].body)).toContain('misc_tool29');
  });

  it('asks sources in order and leaves out a selection that would pass maxTokens - reserve, still trying later ones', async () => {
    const { merged } = catalogue();
    const asked: string[] = [];
    const text = (name: string, body: string): ContextSource => ({
      name,
      select: () => (asked.push(name), { op: 'recalled', text: body }),
    });
    const budget = { maxTokens: 1_000, reserve: 200, count };
    const context = createContextManager({
      budget,
      sources: [text('first', 'FIRST block.'), text('huge', `HUGE ${'x'.repeat(4 * 900)}`), text('last', 'LAST block.')],
    });
    server.enqueue(reply.text('Done.'));

    const parts = await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system: 'Stable.',
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'hi',
        context,
      }),
    );

    expect(asked).toEqual(['first', 'huge', 'last']);
    const system = systemOf(server.requests[0].body);
    expect(system).not.toContain('HUGE');
    expect(system.indexOf('Stable.')).toBeLessThan(system.indexOf('FIRST block.'));
    expect(system.indexOf('FIRST block.')).toBeLessThan(system.indexOf('LAST block.'));
    expect(shape(parts)).toEqual(['context:first:recalled', 'context:huge:skipped', 'context:last:recalled']);
    expect(parts.find((p) => p.type === 'context' && p.op === 'skipped')).toMatchObject({ tokens: count(`HUGE ${'x'.repeat(4 * 900)}`) });
    // What the manager reports for the skip, with its cost against the limit it was held to.
    const prepared = await context.prepare({
      prompt: 'hi',
      messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
      system: 'Stable.',
    });
    expect(prepared.skipped).toMatchObject([{ source: 'huge', op: 'recalled', tokens: count(`HUGE ${'x'.repeat(4 * 900)}`) }]);
    expect(prepared.tokens.limit).toBe(800);
  });

  it('routes a meta-tool call to the first source that answers it, and an ordinary call to execute under its original name', async () => {
    const { merged, calls } = catalogue();
    const lookupSpec = {
      name: 'lookup',
      description: 'Look a customer up.',
      inputSchema: { type: 'object', properties: { who: { type: 'string' } } },
    };
    const answered: string[] = [];
    // `crm` answers only about Acme and passes the rest on; `directory` answers everything.
    const crm: ContextSource = {
      name: 'crm',
      tools: () => [lookupSpec, { name: 'notes_list', description: 'List the notes.', inputSchema: { type: 'object' } }],
      nameMap: () => new Map([['notes_list', 'notes.list']]),
      metaTools: () => ['lookup'],
      handle: (name, input) => {
        if (name !== 'lookup' || (input as { who?: string }).who !== 'acme') return undefined;
        answered.push('crm');
        return { result: { from: 'crm', customer: 'Acme Corp' } };
      },
    };
    const directory: ContextSource = {
      name: 'directory',
      metaTools: () => ['lookup'],
      handle: (name) => (name === 'lookup' ? (answered.push('directory'), { result: { from: 'directory' } }) : undefined),
    };
    const context = createContextManager({ budget: { maxTokens: 100_000, count }, sources: [crm, directory] });
    server.enqueue(
      reply.tools([
        { name: 'lookup', input: { who: 'acme' }, id: 'toolu_a' },
        { name: 'lookup', input: { who: 'globex' }, id: 'toolu_b' },
        { name: 'notes_list', input: {}, id: 'toolu_c' },
      ]),
      reply.text('Found both.'),
    );

    const parts = await collect(
      runAgent({ client: server.client(), model: 'claude-test', tools: merged.tools, execute: merged.execute, prompt: 'who?', context }),
    );

    expect(toolNames(server.requests[0].body)).toEqual(['lookup', 'notes_list']);
    expect(answered.sort()).toEqual(['crm', 'directory']);
    expect(calls).toEqual([{ name: 'notes.list', input: {} }]);
    expect(server.requests[1].body.messages.at(-1).content).toMatchObject([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"from":"crm","customer":"Acme Corp"}' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: '{"from":"directory"}' },
      { type: 'tool_result', tool_use_id: 'toolu_c', content: '["buy milk"]' },
    ]);
    expect(shape(parts)).toEqual(['tool:lookup', 'tool:lookup', 'tool:notes.list']);
  });

  it('puts recalled memory after the stable system text, which stays byte-identical from turn to turn', async () => {
    const { merged, local } = catalogue();
    const memory = createMemoryStore();
    await memory.save('Acme pays by bank transfer');
    await memory.save('Globex pays by card');
    // Memory listed first: its recall must still come after the tool menu, which never changes.
    const context = createContextManager({
      budget: { maxTokens: 100_000, count },
      sources: [memorySource(memory, { recall: { k: 1 } }), lazyToolSource(merged.tools, { pin: local.names })],
    });
    server.enqueue(reply.text('Acme pays by transfer.'), reply.text('Globex pays by card.'));
    const system = 'You are a billing assistant.';

    await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system,
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'How does Acme pay?',
        context,
      }),
    );
    await collect(
      runAgent({
        client: server.client(),
        model: 'claude-test',
        system,
        tools: merged.tools,
        execute: merged.execute,
        prompt: 'How does Globex pay?',
        context,
      }),
    );

    const [first, second] = server.requests.map((r) => systemOf(r.body));
    const memoryAt = (text: string) => text.indexOf('Relevant memory (use if helpful):');
    expect(first.slice(memoryAt(first))).toContain('Acme pays by bank transfer');
    expect(second.slice(memoryAt(second))).toContain('Globex pays by card');
    const stable = first.slice(0, memoryAt(first));
    expect(stable.startsWith(system)).toBe(true);
    expect(stable).toContain('Call search_tools');
    expect(second.slice(0, memoryAt(second))).toBe(stable);
    // On the wire: the cache breakpoint closes the stable block; the memory follows, outside it.
    for (const request of server.requests) {
      expect(request.body.system).toEqual([
        { type: 'text', text: stable.trimEnd(), cache_control: { type: 'ephemeral' } },
        { type: 'text', text: expect.stringMatching(/^Relevant memory/) },
      ]);
    }
  });
});
