import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  anthropic,
  CacheSettingsError,
  createAnthropicInvoker,
  MAX_CACHE_BREAKPOINTS,
  runAgent,
  RunAgentOptionsError,
} from '../../../src/providers/anthropic/index.js';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError } from '../../../src/entries/errors.js';
import type { ToolDefinition } from '../../../src/entries/runtime.js';
import type { ModelRequest, ProviderOptions } from '../../../src/entries/models.js';
import { IndusagiError } from '../../../src/errors/index.js';
import { createContextManager, lazyToolSource, memorySource } from '../../../src/context/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { toToolset } from '../../../src/tools/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { breakpoints, withoutMarkers } from '../../support/cache-markers.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const SYSTEM = 'You are a careful assistant for the notes app.';
const tool = (name: string): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: 'object', properties: {} },
  execute: () => `${name} done`,
});

describe('cache breakpoints on the wire (cache: auto, the default)', () => {
  it('marks the last tool, the system prompt and the last message; later calls also mark where the previous call ended', async () => {
    server.enqueue(reply.tools([{ name: 'notes_list', id: 'toolu_1' }]), reply.text('You have no notes.'), reply.text('Still none.'));
    const agent = createAgent(
      { model: 'claude-sonnet-5-5', system: SYSTEM, tools: [tool('notes.list'), tool('notes.add')] },
      { client: server.client() },
    );

    await agent.submit('What notes do I have?');
    await agent.submit('And now?');

    const [first, second, third] = server.requests.map((r) => r.body);
    expect(breakpoints(first)).toEqual(['tools[1]', 'system[0]', 'messages[0].content[0]']);
    expect(first.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: { type: 'ephemeral' } }]);
    // The tool loop's second call: its prefix up to the first call's last message is read back.
    expect(breakpoints(second)).toEqual(['tools[1]', 'system[0]', 'messages[0].content[0]', 'messages[2].content[0]']);
    // The next run: the previous call ended at the tool result, the new prompt is last.
    expect(breakpoints(third)).toEqual(['tools[1]', 'system[0]', 'messages[2].content[0]', 'messages[4].content[0]']);
  });

  it('each call carries a breakpoint exactly where the previous call ended, with that prefix unchanged, and never more than 4', async () => {
    // Parallel calls make each step add many blocks: more than the API's 20-block look-back.
    const calls = (step: number) => Array.from({ length: 12 }, (_, i) => ({ name: 'probe', id: `toolu_${step}_${i}` }));
    server.enqueue(...[0, 1, 2, 3].map((step) => reply.tools(calls(step))), reply.text('Probed everything.'));
    const agent = createAgent({ model: 'claude-sonnet-5-5', system: SYSTEM, tools: [tool('probe')] }, { client: server.client() });

    await agent.submit('Probe it all.');

    const bodies = server.requests.map((r) => r.body);
    expect(bodies).toHaveLength(5);
    for (const body of bodies) expect(breakpoints(body).length).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
    for (let i = 1; i < bodies.length; i++) {
      const previous = bodies[i - 1];
      const end = previous.messages.length - 1;
      const lastBlock = previous.messages[end].content.length - 1;
      expect(breakpoints(previous)).toContain(`messages[${end}].content[${lastBlock}]`);
      expect(breakpoints(bodies[i])).toContain(`messages[${end}].content[${lastBlock}]`);
      expect(withoutMarkers(bodies[i].messages.slice(0, end + 1))).toEqual(withoutMarkers(previous.messages));
      expect(withoutMarkers(bodies[i].tools)).toEqual(withoutMarkers(previous.tools));
      expect(bodies[i].system).toEqual(previous.system);
    }
  });

  it("with cacheTtl '1h' on the Anthropic model every breakpoint asks for the 1-hour TTL", async () => {
    server.enqueue(reply.text('Hello.'));
    const agent = createAgent({
      model: anthropic('claude-sonnet-5-5', { client: server.client(), cacheTtl: '1h' }),
      system: SYSTEM,
      tools: [tool('notes.list')],
    });

    await agent.submit('Hi');

    const markers = JSON.stringify(server.requests[0].body).match(/"cache_control":\{[^}]*\}/g);
    expect(markers).toEqual(Array(3).fill('"cache_control":{"type":"ephemeral","ttl":"1h"}'));
  });

  it("with cache: 'off' on the invoker the body carries no breakpoint and the system prompt stays a string", async () => {
    server.enqueue(reply.tools([{ name: 'notes_list', id: 'toolu_1' }]), reply.text('None.'));
    const agent = createAgent(
      { model: 'claude-sonnet-5-5', system: SYSTEM, tools: [tool('notes.list')] },
      { invokeModel: createAnthropicInvoker(server.client(), { cache: 'off' }) },
    );

    await agent.submit('Notes?');

    for (const { body } of server.requests) {
      expect(JSON.stringify(body)).not.toContain('cache_control');
      expect(body.system).toBe(SYSTEM);
    }
  });

  it("runAgent takes the same settings: auto by default, none with cache: 'off'", async () => {
    const toolset = toToolset([tool('notes.list')]);
    server.enqueue(reply.text('a'), reply.text('b'));

    for await (const _ of runAgent({
      client: server.client(),
      model: 'claude-sonnet-5-5',
      system: SYSTEM,
      tools: toolset.tools,
      execute: toolset.execute,
      prompt: 'x',
    }));
    for await (const _ of runAgent({
      client: server.client(),
      model: 'claude-sonnet-5-5',
      system: SYSTEM,
      tools: toolset.tools,
      execute: toolset.execute,
      prompt: 'x',
      cache: 'off',
    }));

    expect(breakpoints(server.requests[0].body)).toEqual(['tools[0]', 'system[0]', 'messages[0].content[0]']);
    expect(breakpoints(server.requests[1].body)).toEqual([]);
  });

  it('sends the stable system text first with the breakpoint and recalled memory after it, so the stable block is identical from run to run', async () => {
    const memory = createMemoryStore();
    await memory.save('Invoices for Acme go to billing@acme.test');
    await memory.save('The office cat is called Miso');
    const definitions = Array.from({ length: 6 }, (_, i) => tool(`misc.tool${i}`));
    const specs = toToolset(definitions);
    const context = createContextManager({
      budget: { maxTokens: 100_000, count: (text) => Math.ceil(text.length / 4) },
      sources: [memorySource(memory), lazyToolSource(specs.tools)],
    });
    server.enqueue(reply.text('Sent to billing.'), reply.text('Miso.'));
    const agent = createAgent({ model: 'claude-sonnet-5-5', system: SYSTEM, tools: definitions, context }, { client: server.client() });

    await agent.submit('Where do Acme invoices go?');
    await agent.submit('What is the office cat called?');

    const [first, second] = server.requests.map((r) => r.body);
    for (const body of [first, second]) {
      expect(body.system).toHaveLength(2);
      expect(body.system[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(body.system[0].text.startsWith(SYSTEM)).toBe(true);
      expect(body.system[0].text).toContain('misc_tool0');
      expect(body.system[1].cache_control).toBeUndefined();
    }
    expect(second.system[0]).toEqual(first.system[0]);
    expect(first.system[1].text).toContain('billing@acme.test');
    expect(second.system[1].text).toContain('Miso');
    expect(second.system[1].text).not.toEqual(first.system[1].text);
  });
});

describe('cache settings that cannot work', () => {
  it('are refused before any request, each with its typed error', async () => {
    expect(() => anthropic('m', { client: server.client(), cache: 'on' as never })).toThrow(CacheSettingsError);
    expect(() => anthropic('m', { client: server.client(), cacheTtl: '10m' as never })).toThrow(
      /cacheTtl` must be "5m" or "1h", got "10m"/,
    );
    await expect(runAgent({ client: server.client(), model: 'm', prompt: 'x', cache: 'always' as never }).next()).rejects.toThrow(
      RunAgentOptionsError,
    );
    expect(() => createAnthropicInvoker(server.client(), { cache: 'yes' as never })).toThrow(CacheSettingsError);
    const invoke = createAnthropicInvoker(server.client());
    const request = {
      model: 'm',
      messages: [{ role: 'user' as const, blocks: [{ kind: 'text' as const, text: 'x' }] }],
      tools: [],
      maxOutputTokens: 10,
    };
    await expect(invoke({ ...request, providerOptions: { anthropic: { cacheTtl: '1d' } } })).rejects.toThrow(CacheSettingsError);
    await expect(invoke({ ...request, providerOptions: { anthropic: { ttl: '1h' } } })).rejects.toThrow(
      /providerOptions.anthropic.ttl` is not an Anthropic option/,
    );
    expect(() => createAgent({ model: 'm', providerOptions: { anthropic: { cache: 'sometimes' } } }, { client: server.client() })).toThrow(
      AgentConfigError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('are no longer agent options: createAgent says where cache and cacheTtl went', () => {
    const moved = { model: 'claude-sonnet-5-5', cacheTtl: '1h' } as Parameters<typeof createAgent>[0];
    expect(() => createAgent(moved, { client: server.client() })).toThrow(AgentConfigError);
    expect(() => createAgent(moved, { client: server.client() })).toThrow(
      /`cacheTtl` is an option of the Anthropic model, not of the agent: anthropic\(model, \{ cacheTtl: "1h" \}\)/,
    );
    expect(() => createAgent({ ...moved, cacheTtl: undefined, cache: 'off' } as never, { client: server.client() })).toThrow(
      /providerOptions: \{ anthropic: \{ cache: "off" \} \}/,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('provider options reach the invoker untouched', () => {
  it("providerOptions.anthropic works like the shorthands, and other providers' keys are left alone", async () => {
    server.enqueue(reply.text('ok'));
    const agent = createAgent(
      { model: 'claude-sonnet-5-5', system: SYSTEM, providerOptions: { anthropic: { cacheTtl: '1h' }, openai: { store: false } } },
      { client: server.client() },
    );
    await agent.submit('hi');
    expect(JSON.stringify(server.requests[0].body)).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}');
    expect(JSON.stringify(server.requests[0].body)).not.toContain('store');
  });

  it('an invoker of another vendor checks its own options when the agent is created, and the runtime passes them as given', async () => {
    const seen: unknown[] = [];
    const invoke = Object.assign(
      async (request: ModelRequest) => {
        seen.push(request.providerOptions);
        return { turn: { role: 'assistant' as const, blocks: [{ kind: 'text' as const, text: 'ok' }] }, stopReason: 'end_turn' };
      },
      {
        provider: 'acme',
        checkOptions(options: ProviderOptions | undefined) {
          if (options?.acme?.speed !== undefined && options.acme.speed !== 'fast') throw new AcmeOptionsError();
        },
      },
    );
    expect(() => createAgent({ model: 'm', providerOptions: { acme: { speed: 'slow' } } }, { invokeModel: invoke })).toThrow(
      AgentConfigError,
    );
    const agent = createAgent({ model: 'm', providerOptions: { acme: { speed: 'fast' } } }, { invokeModel: invoke });
    await agent.submit('hi');
    expect(seen).toEqual([{ acme: { speed: 'fast' } }]);
  });
});

class AcmeOptionsError extends IndusagiError {
  static override readonly errorName: string = 'AcmeOptionsError';
  constructor() {
    super('invalid_request', 'acme.speed must be "fast"');
  }
}
