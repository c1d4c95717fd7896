// submit(prompt, { output: schema }) end to end through the real @anthropic-ai/sdk and the loopback
// server: the schema travels as Claude's output_config.format, the answer comes back parsed and
// validated on the snapshot, an answer that does not match gets one repair prompt, then a typed fault.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { createAgent, RunFault, MemorySessionStore } from '../../../src/index.js';
import { OutputValidationError } from '../../../src/runtime/agent/index.js';
import { SchemaDefinitionError } from '../../../src/schema/index.js';
import { registerModelCard } from '../../../src/runtime/models/index.js';
import { tool } from '../../../src/tools/index.js';
import { partOfEvent } from '../../../src/parts/index.js';
import { ChunkTranslator } from '../../../src/ui-message/chunks.js';
import type { RunEvent } from '../../../src/runtime/contract/index.js';

async function collectEvents(run: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run) events.push(event);
  return events;
}
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const forecast = z.object({ city: z.string(), celsius: z.number(), when: z.string().transform((day) => day.toUpperCase()) });
const lastUserText = (n: number): string => {
  const messages = server.requests[n].body.messages;
  const content = messages[messages.length - 1].content;
  return typeof content === 'string' ? content : content.map((block: { text?: string }) => block.text ?? '').join('');
};

describe('structured output', () => {
  it('sends the schema as output_config.format and returns the parsed, validated value, typed', async () => {
    server.enqueue(reply.text('{"city":"Pune","celsius":31,"when":"today"}'));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });

    const snapshot = await agent.submit('Forecast for Pune?', { output: forecast });

    expect(snapshot.status).toBe('settled');
    if (snapshot.status !== 'settled') return;
    const celsius: number = snapshot.output.celsius;
    expect(celsius).toBe(31);
    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31, when: 'TODAY' });
    const format = server.requests[0].body.output_config.format;
    expect(format.type).toBe('json_schema');
    // Fitted to Claude's subset: every object closed.
    expect(format.schema).toMatchObject({ type: 'object', required: ['city', 'celsius', 'when'], additionalProperties: false });
  });

  it('streams the answer as it grows: partial_output events, output parts and data-output chunks, each sure of what it shows', async () => {
    const answer = '{"city":"Pune","celsius":31,"when":"today"}';
    server.enqueue(reply.text(answer, { chunks: ['{"ci', 'ty":"Pu', 'ne","cel', 'sius":3', '1,"when":"to', 'day"}'] }));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });

    const run = agent.submit('Forecast for Pune?', { output: forecast });
    const partials: unknown[] = [];
    for await (const event of run) if (event.kind === 'partial_output') partials.push(event.value);
    const snapshot = await run;

    // A number shows once something ends it: 3 never shows, 31 arrives with the next key.
    expect(partials).toEqual([
      {},
      { city: 'Pu' },
      { city: 'Pune' },
      { city: 'Pune', celsius: 31, when: 'to' },
      { city: 'Pune', celsius: 31, when: 'today' },
    ]);
    // The last partial is the raw answer; the snapshot holds it validated and transformed.
    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31, when: 'TODAY' });
    const parts = [];
    for (const event of [...(await collectEvents(run))]) {
      const part = partOfEvent(event);
      if (part?.type === 'output') parts.push(part.value);
    }
    expect(parts).toEqual(partials);
    const translator = new ChunkTranslator('m1', [], []);
    const chunks = (await collectEvents(run)).flatMap((event) => translator.chunksOf(event)).filter((c) => c.type === 'data-output');
    expect(chunks.map((c) => (c as { data: unknown }).data)).toEqual(partials);
  });

  it('works inside a tool loop: tools run first, every request carries the format, the final answer is the value', async () => {
    const weather = tool({
      name: 'weather.today',
      description: 'Weather.',
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => `${city}: 31C`,
    });
    server.enqueue(
      reply.tools([{ name: 'weather_today', input: { city: 'Pune' } }]),
      reply.text('```json\n{"city":"Pune","celsius":31,"when":"now"}\n```'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [weather] }, { client: server.client() });

    const snapshot = await agent.submit('Forecast?', { output: forecast });

    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31, when: 'NOW' });
    expect(server.requests.map((request) => request.body.output_config?.format?.type)).toEqual(['json_schema', 'json_schema']);
  });

  it('repairs once: the model is told every problem, and the repaired answer is the value', async () => {
    server.enqueue(reply.text('{"city":"Pune","celsius":"hot"}'), reply.text('{"city":"Pune","celsius":31,"when":"today"}'));
    const store = new MemorySessionStore();
    const agent = createAgent({ model: 'claude-test' }, { client: server.client(), store });

    const snapshot = await agent.submit('Forecast?', { output: forecast });

    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31, when: 'TODAY' });
    expect(server.requests).toHaveLength(2);
    const repair = lastUserText(1);
    expect(repair).toMatch(/^\[output repair\] Your answer is not the JSON this task requires:\n/);
    expect(repair).toContain('- /celsius: Invalid input: expected number, received string');
    expect(repair).toContain('- /when: Invalid input: expected string, received undefined');
    // The repair is part of the conversation, as the model saw it.
    expect(snapshot.messages.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('faults invalid_output when the repaired answer fails too, keeping what was said', async () => {
    server.enqueue(reply.text('It will be hot.'), reply.text('{"city":"Pune"'));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const events: string[] = [];
    agent.subscribe((event) => events.push(event.kind));

    const failure = (await agent.submit('Forecast?', { output: forecast }).catch((error: unknown) => error)) as RunFault;

    expect(RunFault.isInstance(failure)).toBe(true);
    expect(failure.kind).toBe('invalid_output');
    expect(lastUserText(1)).toMatch(/- \(the whole value\): The answer is not valid JSON \(Unexpected token/);
    const cause = failure.cause as OutputValidationError;
    expect(OutputValidationError.isInstance(cause)).toBe(true);
    expect(cause.text).toBe('{"city":"Pune"');
    expect(cause.issues[0].message).toMatch(/^The answer is not valid JSON/);
    expect(failure.snapshot.messages).toHaveLength(4);
    expect(events).toContain('faulted');
    expect(server.requests).toHaveLength(2);
  });

  it('takes a JSON Schema too, and refuses a schema that cannot work before any request', async () => {
    server.enqueue(reply.text('{"ok":true}'));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };

    expect((await agent.submit('ok?', { output: schema })).output).toEqual({ ok: true });
    const refused = await agent.submit('again', { output: v.object({ ok: v.boolean() }) }).catch((error: unknown) => error);
    expect(SchemaDefinitionError.isInstance(refused)).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('sends the schema as an instruction after the system text, not output_config, for a model whose card asks for one', async () => {
    const remove = registerModelCard({
      id: 'claude-older',
      contextWindow: 200_000,
      maxOutputTokens: 8_192,
      structuredOutput: 'instruction',
    });
    try {
      server.enqueue(reply.text('{"city":"Pune","celsius":31,"when":"today"}'));
      const agent = createAgent({ model: 'claude-older', system: 'Be brief.' }, { client: server.client() });

      const snapshot = await agent.submit('Forecast?', { output: forecast });

      expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31, when: 'TODAY' });
      const body = server.requests[0].body;
      expect(body).not.toHaveProperty('output_config');
      // The stable system text keeps its cache breakpoint; the instruction follows it, uncached.
      expect(body.system).toEqual([
        { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
        {
          type: 'text',
          text: expect.stringMatching(
            /^Your final answer \(after any tool calls\) must be one JSON value .*"required":\["city","celsius","when"\]/s,
          ),
        },
      ]);
    } finally {
      remove();
    }
  });

  it('carries the output request across approvals: the approving run brings the value', async () => {
    const book = tool({
      name: 'trips.book',
      description: 'Book.',
      inputSchema: z.object({ city: z.string() }),
      needsApproval: true,
      execute: ({ city }) => `booked ${city}`,
    });
    server.enqueue(
      reply.tools([{ name: 'trips_book', input: { city: 'Goa' }, id: 'toolu_b' }]),
      reply.text('{"city":"Goa","celsius":29,"when":"friday"}'),
    );
    const agent = createAgent({ model: 'claude-test', tools: [book] }, { client: server.client() });

    const waiting = await agent.submit('Book Goa and forecast it', { output: forecast });
    expect(waiting.status).toBe('waiting');
    expect(waiting.output).toBeUndefined();
    const settled = await agent.approve('toolu_b');

    expect(settled.output).toEqual({ city: 'Goa', celsius: 29, when: 'FRIDAY' });
    expect(server.requests[1].body.output_config.format.type).toBe('json_schema');
  });
});
