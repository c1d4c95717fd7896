// createAgent({ context }) end to end through the real @anthropic-ai/sdk and the loopback server: the
// manager's reports as `context` events, its tool list in place of config.tools, and, with
// `compaction` on, history, recalled memory and tools held to one budget.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import type { RunEvent } from '../../../src/entries/runtime.js';
import { createContextManager, lazyToolSource, memorySource } from '../../../src/context/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { SEARCH_TOOLS } from '../../../src/tools/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer, type RecordedRequest } from '../../../src/testing/index.js';
import { catalogue, fakeModel, isSummarizerRequest, long, systemOf, toolNames } from '../../support/context-wiring.js';

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-context-wiring-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const count = (text: string) => Math.ceil(text.length / 4);
const MEMORY_HEADER = 'Relevant memory (use if helpful):';

/** Each run's events, split at `run_started`. */
function runsOf(events: RunEvent[]): RunEvent[][] {
  const runs: RunEvent[][] = [];
  for (const event of events) {
    if (event.kind === 'run_started') runs.push([]);
    runs.at(-1)?.push(event);
  }
  return runs;
}

/** `compacted`, `context:memory:recalled` and the like, in order, for one run. */
const budgetEvents = (run: RunEvent[]): string[] =>
  run.flatMap((e) => (e.kind === 'compacted' ? ['compacted'] : e.kind === 'context' ? [`context:${e.source}:${e.op}`] : []));

const agentRequests = (): RecordedRequest[] => server.requests.filter((r) => !isSummarizerRequest(r.body));

/**
 * What indusagi's own estimate makes of a request body: a quarter token a character of system text,
 * tool JSON and message content, plus 4 a message. Messages merged on the wire count once, so this
 * errs low, never high.
 */
function estimatedTokens(body: any): number {
  let chars = systemOf(body).length + (body.tools ? JSON.stringify(body.tools).length : 0);
  let messages = 0;
  for (const message of body.messages) {
    messages++;
    for (const block of message.content) {
      if (block.type === 'text') chars += block.text.length;
      else if (block.type === 'tool_use') chars += block.id.length + block.name.length + JSON.stringify(block.input).length;
      else if (block.type === 'tool_result') chars += block.tool_use_id.length + (block.content ?? '').length;
    }
  }
  return Math.ceil(chars / 4) + 4 * messages;
}

// A 4,000-token window, 400 reserved for output, condensing past 80%: requests may hold 2,800 tokens.
// The manager gets the same numbers, so recalled memory and history share one budget.
const WINDOW = 4_000;
const OUTPUT = 400;
const LIMIT = WINDOW * 0.8 - OUTPUT;
const agentConfig = {
  model: 'claude-test',
  system: 'You answer billing questions.',
  contextWindow: WINDOW,
  maxOutputTokens: OUTPUT,
  compaction: { keepRecent: 2 },
};
const oneBudget = { maxTokens: WINDOW * 0.8, reserve: OUTPUT, count };

describe('createAgent({ context })', () => {
  it('publishes the manager’s reports as context events, sends its tool list instead of config.tools, and puts memory after config.system', async () => {
    const { definitions, local, merged, calls } = catalogue();
    const memory = createMemoryStore();
    await memory.save('Invoices for Acme go to billing@acme.test');
    const context = createContextManager({
      budget: { maxTokens: 100_000, count },
      sources: [memorySource(memory, { remember: () => ['Acme was invoiced'] }), lazyToolSource(merged.tools, { pin: local.names })],
    });
    server.enqueue(
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'create invoice' } }]),
      reply.tools([{ name: 'billing_createInvoice', input: { customer: 'acme' } }]),
      reply.text('Invoiced Acme as INV-1.'),
      reply.text('Anything else?'),
    );
    const agent = createAgent(
      { model: 'claude-test', system: 'You answer billing questions.', tools: definitions, context },
      { client: server.client() },
    );
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    await agent.submit('Invoice Acme');
    await agent.submit('Thanks, what about Acme next month?');

    const [first, second] = runsOf(events).map((run) =>
      run
        .filter((e) => e.kind === 'context' || e.kind === 'tool_finished')
        .map((e) => (e.kind === 'context' ? `context:${e.source}:${e.op}` : `tool:${(e as { name: string }).name}`)),
    );
    expect(first).toEqual([
      'context:memory:recalled',
      `tool:${SEARCH_TOOLS}`,
      'context:tools:loaded',
      'tool:billing.createInvoice',
      'context:memory:saved',
    ]);
    expect(second).toEqual(['context:memory:recalled', 'context:memory:saved']);
    expect(calls).toEqual([{ name: 'billing.createInvoice', input: { customer: 'acme' } }]);

    const bodies = server.requests.map((r) => r.body);
    // 33 tools configured, never sent: the lazy source owns the list; the pinned tool is always there.
    expect(bodies.map(toolNames)).toEqual([
      [SEARCH_TOOLS, 'notes_list'],
      [SEARCH_TOOLS, 'notes_list', 'billing_createInvoice'],
      [SEARCH_TOOLS, 'notes_list', 'billing_createInvoice'],
      [SEARCH_TOOLS, 'notes_list', 'billing_createInvoice'],
    ]);
    const stable = systemOf(bodies[0]).slice(0, systemOf(bodies[0]).indexOf(MEMORY_HEADER));
    expect(stable.startsWith('You answer billing questions.')).toBe(true);
    expect(stable).toContain('misc_tool29');
    for (const body of bodies) {
      const system = systemOf(body);
      expect(system.indexOf(MEMORY_HEADER)).toBe(stable.length);
      expect(system.slice(stable.length)).toContain('- Invoices for Acme go to billing@acme.test');
    }
    // The second run also recalls what the first one saved, after the same stable text.
    expect(systemOf(bodies[3]).slice(stable.length)).toContain('- Acme was invoiced');
  });

  it('condenses a long conversation first and recalls memory into the room that frees, every run', async () => {
    const memory = createMemoryStore();
    await memory.save('Acme pays by bank transfer within thirty days');
    const context = createContextManager({ budget: oneBudget, sources: [memorySource(memory)] });
    fakeModel(server, (_body, n) => reply.text(long(`Answer ${n}: Acme pays by transfer.`)));
    const agent = createAgent({ ...agentConfig, context, sessionId: 'acme' }, { client: server.client(), store: new SessionStore(dir) });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    for (let i = 0; i < 6 && !events.some((e) => e.kind === 'compacted'); i++)
      await agent.submit(long(`Question ${i}: how does Acme pay?`));
    await agent.close();

    const runs = runsOf(events).map(budgetEvents);
    expect(runs.at(-1)).toEqual(['compacted', 'context:memory:recalled']);
    for (const run of runs.slice(0, -1)) expect(run).toEqual(['context:memory:recalled']);
    const requests = agentRequests();
    for (const request of requests) {
      expect(systemOf(request.body)).toContain('- Acme pays by bank transfer within thirty days');
      expect(estimatedTokens(request.body)).toBeLessThanOrEqual(LIMIT);
    }
    const condensed = requests.at(-1)!.body;
    expect(condensed.messages[0].content[0].text.startsWith(COMPACTION_PREFIX)).toBe(true);
    expect(systemOf(condensed).indexOf('You answer billing questions.')).toBe(0);
    // The summary is stored as a condensation, billed with what the summarizer call cost.
    const graph = await new SessionStore(dir).loadSession('acme');
    const summaries = [...graph.allNodes()].filter((node) => node.condenses !== undefined);
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({ model: 'claude-test', usage: { outputTokens: 40 } });
  });

  it('skips a big recalled block while the history leaves no room for it, without condensing early, and recalls it again once history condenses', async () => {
    const memory = createMemoryStore();
    const handbook = `Acme billing handbook: ${'invoices are net thirty and paid by bank transfer only '.repeat(65)}`;
    await memory.save(handbook);
    const context = createContextManager({ budget: oneBudget, sources: [memorySource(memory)] });
    fakeModel(server, (_body, n) => reply.text(long(`Answer ${n}: Acme pays by transfer.`)));
    const agent = createAgent({ ...agentConfig, context }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    for (let i = 0; i < 4; i++) await agent.submit(long(`Question ${i}: how does Acme pay?`));

    // Runs 1 and 2 have room for the handbook; run 3's history fits on its own but not beside it, so the
    // handbook waits, reported as skipped (nothing is condensed just to make room); run 4's history must condense anyway,
    // and the handbook fits beside the summary.
    expect(runsOf(events).map(budgetEvents)).toEqual([
      ['context:memory:recalled'],
      ['context:memory:recalled'],
      ['context:memory:skipped'],
      ['compacted', 'context:memory:recalled'],
    ]);
    const requests = agentRequests();
    expect(requests.map((r) => systemOf(r.body).includes('Acme billing handbook'))).toEqual([true, true, false, true]);
    for (const request of requests) expect(estimatedTokens(request.body)).toBeLessThanOrEqual(LIMIT);
  });

  it('counts the recalled block before every call of its run: tool results condense around a big one sooner, and no call passes the budget', async () => {
    const readNotes = async (fact: string): Promise<{ compactedBefore: number; requests: RecordedRequest[] }> => {
      const memory = createMemoryStore();
      await memory.save(fact);
      // notes.list answers with a long page of notes, so each tool round adds about 500 tokens.
      const notes = { ...catalogue().definitions[0], execute: () => long('Notes page:', 380) };
      const context = createContextManager({ budget: oneBudget, sources: [memorySource(memory)] });
      const start = server.requests.length;
      let rounds = 0;
      fakeModel(server, () => (++rounds <= 8 ? reply.tools([{ name: 'notes_list', input: {} }]) : reply.text('Done reading.')));
      // Keeping up to 8 turns, a condensation keeps as many tool rounds as it thinks fit: only if it counts
      // the recalled block does the call after it stay inside the budget.
      const agent = createAgent({ ...agentConfig, compaction: { keepRecent: 8 }, tools: [notes], context }, { client: server.client() });
      const events: RunEvent[] = [];
      agent.subscribe((e) => events.push(e));

      await agent.submit('Read my notes about Acme, page by page.');

      const requests = server.requests.slice(start).filter((r) => !isSummarizerRequest(r.body));
      const compactedBefore = requests.findIndex((r) => r.body.messages[0].content[0].text?.startsWith(COMPACTION_PREFIX));
      expect(events.filter((e) => e.kind === 'compacted').length).toBeGreaterThan(0);
      return { compactedBefore, requests };
    };

    const small = await readNotes('Acme notes are filed weekly');
    const big = await readNotes(`Acme notes handbook: ${'notes are filed weekly and reviewed by the Acme account team '.repeat(52)}`);

    expect(big.compactedBefore).toBeGreaterThan(0);
    expect(big.compactedBefore).toBeLessThan(small.compactedBefore);
    for (const request of [...small.requests, ...big.requests]) expect(estimatedTokens(request.body)).toBeLessThanOrEqual(LIMIT);
    for (const request of big.requests) expect(systemOf(request.body)).toContain('Acme notes handbook');
  });
});
