import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../src/entries/runtime.js';
import { modelCard } from '../../src/runtime/models/index.js';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
import { makeWorkspace, runCli } from './cli-process.js';

let workspace: Awaited<ReturnType<typeof makeWorkspace>>;
let store: string;

// Two sessions written by real agents over the loopback API: one on a priced model, one on a model without prices.
beforeAll(async () => {
  workspace = await makeWorkspace();
  store = join(workspace.dir, 'store');
  const server = await startAnthropicServer();
  try {
    server.enqueue(
      reply.tools([{ name: 'probe', id: 'toolu_1' }], {
        usage: { input_tokens: 1_000, output_tokens: 40, cache_creation_input_tokens: 800 },
      }),
      reply.text('Probed.', {
        usage: { input_tokens: 57, output_tokens: 37, cache_creation_input_tokens: 100, cache_read_input_tokens: 3_700 },
      }),
      reply.text('Hello.', { usage: { input_tokens: 9, output_tokens: 3 } }),
    );
    const probe = { name: 'probe', description: 'Probes.', inputSchema: { type: 'object' }, execute: () => 'ok' };
    const priced = createAgent(
      { model: 'claude-sonnet-5-5', tools: [probe], sessionId: 'priced' },
      { client: server.client(), store: new SessionStore(store) },
    );
    await priced.submit('Probe it.');
    await priced.close();
    const unpriced = createAgent(
      { model: 'my-local-model', sessionId: 'unpriced' },
      { client: server.client(), store: new SessionStore(store) },
    );
    await unpriced.submit('Hi');
    await unpriced.close();
  } finally {
    await server.close();
  }
});
afterAll(async () => {
  await workspace.cleanup();
});

describe('indusagi sessions show', () => {
  it('ends with the session’s billed usage and its estimated cost', async () => {
    const run = await runCli(['sessions', 'show', 'priced', '--store', store], workspace.dir);

    expect(run.code).toBe(0);
    const prices = modelCard('claude-sonnet-5-5').pricing!;
    const usd =
      (1_057 * prices.inputPerMTok + 77 * prices.outputPerMTok + 900 * prices.cacheWritePerMTok + 3_700 * prices.cacheReadPerMTok) / 1e6;
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'usage (all branches, as billed): 1,057 input, 77 output, 900 cache write, 3,700 cache read tokens',
      `estimated cost: $${usd.toFixed(4)} (estimate from list prices as of ${prices.pricesAsOf})`,
    ]);
  });

  it('says the cost is unknown, and why, for a model without prices', async () => {
    const run = await runCli(['sessions', 'show', 'unpriced', '--store', store], workspace.dir);

    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'usage (all branches, as billed): 9 input, 3 output, 0 cache write, 0 cache read tokens',
      'estimated cost: unknown, no prices for my-local-model',
    ]);
  });
});
