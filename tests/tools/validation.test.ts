// Every tool input is checked against the tool's schema before `execute`, end to end through the real
// @anthropic-ai/sdk and the loopback server: invalid input never reaches the tool, the model is answered
// with an error result naming each problem (path and message), and the run goes on.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { createAgent, type RunEvent } from '../../src/entries/runtime.js';
import { AgentConfigError, ToolInputError } from '../../src/entries/errors.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import { runAgent } from '../../src/providers/anthropic/index.js';
import { createContextManager, lazyToolSource } from '../../src/context/index.js';
import { SchemaDefinitionError } from '../../src/schema/index.js';
import { SEARCH_TOOLS, tool, toToolset } from '../../src/tools/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

type ResultParam = { type: 'tool_result'; tool_use_id: string; content?: string; is_error?: boolean };
/** The tool results the SDK sent back on request `n`. */
const resultsSentOn = (n: number): ResultParam[] =>
  server.requests[n].body.messages
    .flatMap((message: { content: unknown }) => (Array.isArray(message.content) ? message.content : []))
    .filter((block: { type: string }) => block.type === 'tool_result');

function shippingTools(ran: unknown[]) {
  // A Standard Schema (zod) tool with a nested object, a default and a transform.
  const ship = tool({
    name: 'orders.ship',
    description: 'Ship an order.',
    inputSchema: z.object({
      city: z.string(),
      address: z.object({ zip: z.string().regex(/^[0-9]{5}$/, 'A zip code is five digits.') }),
      copies: z.number().int().default(1),
      by: z.string().transform((day) => day.toUpperCase()),
    }),
    execute: (input) => {
      ran.push(input);
      return `shipped to ${input.city} by ${input.by}`;
    },
  });
  // A plain JSON Schema tool, as issue 16 found it: `{"town": 42}` ran.
  const weather = tool({
    name: 'weather.today',
    description: 'Today’s weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    execute: (input: { city: string }) => {
      ran.push(input);
      return `clear in ${input.city}`;
    },
  });
  return { ship, weather };
}

describe('tool input validation in the conductor', () => {
  it('answers invalid input with every problem, runs only valid calls (with the schema’s output), and goes on', async () => {
    const ran: unknown[] = [];
    const { ship, weather } = shippingTools(ran);
    server.enqueue(
      reply.tools([
        { name: 'weather_today', input: { town: 42 }, id: 'toolu_bad_json' },
        { name: 'orders_ship', input: { town: 'Pune', address: { zip: 411 }, by: 'friday' }, id: 'toolu_bad_zod' },
        { name: 'orders_ship', input: { city: 'Pune', address: { zip: '41100' }, by: 'friday' }, id: 'toolu_good' },
      ]),
      reply.text('One order shipped; I will fix the others.'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [ship, weather] }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((event) => events.push(event));

    const snapshot = await agent.submit('Ship it and check the weather');

    expect(snapshot.status).toBe('settled');
    expect(snapshot.text).toBe('One order shipped; I will fix the others.');
    // Only the valid call ran, with zod's output: the default filled in, the transform applied.
    expect(ran).toEqual([{ city: 'Pune', address: { zip: '41100' }, copies: 1, by: 'FRIDAY' }]);
    const [badJson, badZod, good] = resultsSentOn(1);
    expect(badJson).toMatchObject({ tool_use_id: 'toolu_bad_json', is_error: true });
    expect(badJson.content).toBe(
      'Invalid input for tool "weather.today" (2 problems); the tool did not run. Fix the input and call it again:\n' +
        '- (the whole value): Instance does not have required property "city".\n' +
        '- /town: Unexpected property: the schema allows no property of this name.',
    );
    expect(badZod).toMatchObject({ tool_use_id: 'toolu_bad_zod', is_error: true });
    expect(badZod.content).toMatch(/^Invalid input for tool "orders.ship" \(2 problems\); the tool did not run/);
    expect(badZod.content).toMatch(/\n- \/city: Invalid input: expected string, received undefined/);
    expect(badZod.content).toMatch(/\n- \/address\/zip: Invalid input: expected string, received number/);
    expect(good).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_good', content: 'shipped to Pune by FRIDAY' });
    expect(good.is_error).toBeUndefined();
    // Refused like an unknown tool: finished as an error, never started.
    expect(events.filter((e) => e.kind === 'tool_started').map((e) => (e as { callId: string }).callId)).toEqual(['toolu_good']);
    expect(events.find((e) => e.kind === 'tool_finished' && e.callId === 'toolu_bad_json')).toMatchObject({
      isError: true,
      input: { town: 42 },
      result: badJson.content,
    });
  });

  it('checks input the same with a session store (history recall wraps the tools then)', async () => {
    const ran: unknown[] = [];
    const { weather } = shippingTools(ran);
    server.enqueue(reply.tools([{ name: 'weather_today', input: { town: 42 } }]), reply.text('Which city?'));
    const agent = createAgent({ model: 'claude-test', tools: [weather] }, { client: server.client(), store: new MemorySessionStore() });

    await agent.submit('Weather?');

    expect(ran).toEqual([]);
    expect(resultsSentOn(1)[0]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/^Invalid input for tool "weather.today" \(2 problems\)/),
    });
  });

  it('refuses an invalid call of a tool that needs approval without asking anyone to approve it', async () => {
    const ran: unknown[] = [];
    const guarded = tool({
      name: 'files.delete',
      description: 'Delete a file.',
      inputSchema: z.object({ path: z.string().min(1) }),
      needsApproval: true,
      execute: (input) => void ran.push(input),
    });
    server.enqueue(reply.tools([{ name: 'files_delete', input: { path: '' }, id: 'toolu_del' }]), reply.text('Which file?'));
    const agent = createAgent({ model: 'claude-test', tools: [guarded] }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((event) => events.push(event));

    const snapshot = await agent.submit('Delete it');

    expect(snapshot.status).toBe('settled');
    expect(snapshot.pendingApprovals).toEqual([]);
    expect(events.some((e) => e.kind === 'approval_requested')).toBe(false);
    expect(resultsSentOn(1)[0]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/- \/path: Too small: expected string to have >=1 characters/),
    });
    expect(ran).toEqual([]);
  });

  it('waits for a schema that validates asynchronously before deciding', async () => {
    const ran: unknown[] = [];
    const signup = tool({
      name: 'users.create',
      description: 'Create a user.',
      inputSchema: z
        .object({ name: z.string() })
        .refine(async (input) => input.name !== 'root', { message: 'That name is reserved.', path: ['name'] }),
      execute: (input) => void ran.push(input.name),
    });
    server.enqueue(
      reply.tools([
        { name: 'users_create', input: { name: 'root' } },
        { name: 'users_create', input: { name: 'ada' } },
      ]),
      reply.text('Made ada.'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [signup] }, { client: server.client() });

    await agent.submit('Make root and ada');

    expect(ran).toEqual(['ada']);
    expect(resultsSentOn(1).map((result) => [result.is_error ?? false, result.content])).toEqual([
      [true, expect.stringMatching(/- \/name: That name is reserved\.$/)],
      [false, undefined], // an empty result travels without content
    ]);
  });

  it('checks the tools a search_tools call loads, and search_tools’ own input, the same way', async () => {
    const ran: unknown[] = [];
    const { ship, weather } = shippingTools(ran);
    const source = lazyToolSource(toToolset([ship, weather]).tools);
    const context = createContextManager({
      budget: { maxTokens: 100_000, count: (text) => Math.ceil(text.length / 4) },
      sources: [source],
    });
    server.enqueue(
      reply.tools([{ name: SEARCH_TOOLS, input: { q: 'weather' }, id: 'toolu_search_bad' }]),
      reply.tools([{ name: SEARCH_TOOLS, input: { query: 'weather' }, id: 'toolu_search' }]),
      reply.tools([{ name: 'weather_today', input: { city: 7 }, id: 'toolu_loaded_bad' }]),
      reply.tools([{ name: 'weather_today', input: { city: 'Pune' }, id: 'toolu_loaded' }]),
      reply.text('Clear in Pune.'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [ship, weather], context }, { client: server.client() });

    await agent.submit('Weather in Pune?');

    expect(resultsSentOn(1)[0]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/tool "search_tools" \(1 problem\)[\s\S]*required property "query"/),
    });
    expect(server.requests[2].body.tools.map((t: { name: string }) => t.name)).toContain('weather_today');
    expect(resultsSentOn(3)[2]).toMatchObject({
      tool_use_id: 'toolu_loaded_bad',
      is_error: true,
      content: expect.stringMatching(/- \/city: Instance type "number" is invalid. Expected "string"./),
    });
    expect(ran).toEqual([{ city: 'Pune' }]);
  });

  it('refuses a schema that cannot work when the tool is defined, or when the agent is created', () => {
    const definition = { name: 'trip.plan', description: 'Plan a trip.', inputSchema: v.object({ city: v.string() }), execute: () => 'ok' };
    expect(() => tool(definition)).toThrow(SchemaDefinitionError);
    expect(() => tool(definition)).toThrow(/^tool "trip.plan" inputSchema: this valibot schema cannot produce a JSON Schema/);
    expect(() => createAgent({ model: 'claude-test', tools: [definition] }, { client: server.client() })).toThrow(AgentConfigError);
    expect(() => tool({ ...definition, inputSchema: { type: 'string' } })).toThrow(
      /a tool's input must be an object; the JSON Schema says type "string"/,
    );
    // Given beside it, a JSON Schema makes the same valibot schema usable.
    const jsonSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(toToolset([tool({ ...definition, inputJsonSchema: jsonSchema })]).tools[0].input_schema).toBe(jsonSchema);
  });
});

describe('tool input validation in toToolset and runAgent', () => {
  it('toToolset sends the derived JSON Schema, and its execute checks input before running or holding a call', async () => {
    const ran: unknown[] = [];
    const { ship } = shippingTools(ran);
    const toolset = toToolset([ship, { ...ship, name: 'orders.ship_later', needsApproval: true }]);
    expect(toolset.tools[0].input_schema).toMatchObject({ type: 'object', required: ['city', 'address', 'by'] });
    await expect(toolset.execute('orders.ship_later', { city: 'Pune' })).rejects.toThrow(ToolInputError);
    const error = (await toolset
      .execute('orders.ship', { city: 3, address: { zip: '41100' }, by: 'mon' })
      .catch((e: unknown) => e)) as ToolInputError;
    expect(error.issues).toEqual([{ path: '/city', message: 'Invalid input: expected string, received number' }]);
    expect(await toolset.execute('orders.ship', { city: 'Pune', address: { zip: '41100' }, by: 'mon' })).toBe('shipped to Pune by MON');
    expect(ran).toEqual([{ city: 'Pune', address: { zip: '41100' }, copies: 1, by: 'MON' }]);
  });

  it('runAgent refuses invalid input to a toolset’s tool and passes valid input through the tool’s own schema, once', async () => {
    const ran: unknown[] = [];
    const stamped = tool({
      name: 'orders.stamp',
      description: 'Stamp an order.',
      inputSchema: z.object({ mark: z.string().transform((mark) => `${mark}!`) }),
      execute: (input) => void ran.push(input),
    });
    const toolset = toToolset([shippingTools(ran).ship, stamped]);
    server.enqueue(
      reply.tools([
        { name: 'orders_ship', input: { city: 'Pune', address: {}, by: 'mon' } },
        { name: 'orders_ship', input: { city: 'Pune', address: { zip: '41100' }, by: 'mon' } },
        { name: 'orders_stamp', input: { mark: 'paid' } },
      ]),
      reply.text('Done.'),
    );
    const parts = [];
    for await (const part of runAgent({
      client: server.client(),
      model: 'claude-test',
      tools: toolset.tools,
      execute: toolset.execute,
      prompt: 'Ship',
    }))
      parts.push(part);

    // The transform ran once: the conductor checked the JSON Schema, the toolset its own zod schema.
    expect(ran).toEqual([{ city: 'Pune', address: { zip: '41100' }, copies: 1, by: 'MON' }, { mark: 'paid!' }]);
    expect(resultsSentOn(1)[0]).toMatchObject({
      is_error: true,
      content: expect.stringMatching(/- \/address: Instance does not have required property "zip"\./),
    });
  });
});
