// What the OpenAI invoker sends beyond text, through the real `openai` client and the loopback Responses
// API: images and documents as input parts, a required JSON answer as `text.format` (strict where strict
// mode takes the schema), and what a model's card refuses or asks for instead.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, type PromptBlock } from '../../../src/entries/runtime.js';
import { registerModelCard } from '../../../src/runtime/models/index.js';
import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import { strictFit, UnsupportedContentError } from '../../../src/providers/shared/index.js';
import { pdfBase64, pngBase64 } from '../../support/media.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../../support/openai-server.js';

let server: OpenAITestServer;
const removals: Array<() => void> = [];
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(async () => {
  for (const remove of removals.splice(0)) remove();
  await server.close();
});

const png = pngBase64(640, 480);
const pdf = pdfBase64(2);
const agentFor = (model: string) => createAgent({ model }, { invokeModel: createOpenAIInvoker(server.client()) });
const textOnly = (id: string, extra: object = {}) =>
  removals.push(registerModelCard({ id, contextWindow: 32_000, maxOutputTokens: 4_000, ...extra }));

describe('images and documents', () => {
  it('go as user messages of input_image and input_file parts, inline as data URLs or by URL; a text document as text', async () => {
    server.enqueue(response.text('Both charts rise.'));
    const prompt: PromptBlock[] = [
      { kind: 'text', text: 'Compare these.' },
      { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: png } },
      { kind: 'image', source: { type: 'url', url: 'https://example.test/chart.png' } },
      { kind: 'document', title: 'Q3 report', source: { type: 'base64', mediaType: 'application/pdf', data: pdf } },
      { kind: 'document', title: 'Q4', source: { type: 'url', url: 'https://example.test/q4.pdf' } },
      { kind: 'document', title: 'Notes', source: { type: 'text', text: 'Revenue rose 4%.' } },
    ];

    const snapshot = await agentFor('gpt-5').submit(prompt);

    expect(snapshot.text).toBe('Both charts rise.');
    expect(server.requests[0].body.input).toEqual([
      { type: 'message', role: 'user', content: 'Compare these.' },
      { type: 'message', role: 'user', content: [{ type: 'input_image', detail: 'auto', image_url: `data:image/png;base64,${png}` }] },
      { type: 'message', role: 'user', content: [{ type: 'input_image', detail: 'auto', image_url: 'https://example.test/chart.png' }] },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_file', filename: 'Q3 report.pdf', file_data: `data:application/pdf;base64,${pdf}` }],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_file', filename: 'Q4', file_url: 'https://example.test/q4.pdf' }] },
      { type: 'message', role: 'user', content: '<document title="Notes">\nRevenue rose 4%.\n</document>' },
    ]);
  });

  it('are refused before any request when the model’s card says it cannot take them, naming the model; a text document still goes', async () => {
    textOnly('local-llama', { input: { images: false, documents: false } });
    server.enqueue(response.text('Noted.'));
    const agent = agentFor('local-llama');

    const image = await agent.submit([{ kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: png } }]).catch((e) => e);
    const pdfFault = await createOpenAIInvoker(server.client())({
      model: 'local-llama',
      messages: [{ role: 'user', blocks: [{ kind: 'document', source: { type: 'url', url: 'https://example.test/q4.pdf' } }] }],
      tools: [],
      maxOutputTokens: 100,
    }).catch((e) => e);

    // Refused before the prompt joins the conversation, as an invalid prompt is: the typed error itself, no run.
    expect(UnsupportedContentError.isInstance(image)).toBe(true);
    expect(image.kind).toBe('invalid_request');
    expect(image.message).toMatch(/"local-llama" cannot take images \(its model card says `input.images: false`\)/);
    expect(pdfFault).toMatchObject({ name: 'UnsupportedContentError', kind: 'invalid_request', content: 'documents' });
    expect(server.requests).toHaveLength(0);

    await agentFor('local-llama').submit([{ kind: 'document', title: 'Notes', source: { type: 'text', text: 'Rose 4%.' } }]);
    expect(server.requests[0].body.input).toEqual([
      { type: 'message', role: 'user', content: '<document title="Notes">\nRose 4%.\n</document>' },
    ]);
  });
});

describe('a required JSON answer', () => {
  const forecast = z.object({ city: z.string(), celsius: z.number() });

  it('goes as text.format json_schema, strict when every property is required and no other allowed, and comes back parsed', async () => {
    server.enqueue(response.text('{"city":"Pune","celsius":31}'));

    const snapshot = await agentFor('gpt-5').submit('Forecast for Pune?', { output: forecast });

    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31 });
    expect(server.requests[0].body.text).toEqual({
      format: {
        type: 'json_schema',
        name: 'output',
        strict: true,
        // zod's input schema leaves the object open; closed, strict mode takes it.
        schema: { ...z.toJSONSchema(forecast, { target: 'draft-2020-12', io: 'input' }), additionalProperties: false },
      },
    });
  });

  it('goes non-strict for a schema with an optional property, as it is rather than changed', async () => {
    server.enqueue(response.text('{"city":"Pune"}'));

    const snapshot = await agentFor('gpt-5').submit('Forecast?', { output: forecast.partial({ celsius: true }) });

    expect(snapshot.output).toEqual({ city: 'Pune' });
    expect(server.requests[0].body.text.format).toMatchObject({ type: 'json_schema', strict: false, schema: { required: ['city'] } });
  });

  it('goes as an instruction at the end of the instructions for a root that is not an object, or a card that asks for one', async () => {
    textOnly('local-llama', { structuredOutput: 'instruction' });
    server.enqueue(response.text('["a","b"]'), response.text('{"city":"Pune","celsius":31}'));

    const list = await agentFor('gpt-5').submit('Two letters?', { output: z.array(z.string()) });
    const local = await createAgent(
      { model: 'local-llama', system: 'Be brief.' },
      { invokeModel: createOpenAIInvoker(server.client()) },
    ).submit('Forecast?', { output: forecast });

    expect(list.output).toEqual(['a', 'b']);
    expect(local.output).toEqual({ city: 'Pune', celsius: 31 });
    for (const { body } of server.requests) expect(body).not.toHaveProperty('text');
    expect(server.requests[0].body.instructions).toMatch(
      /^Your final answer \(after any tool calls\) must be one JSON value .*"type":"array"/s,
    );
    const [system, instruction] = server.requests[1].body.instructions.split('\n\n');
    expect(system).toBe('Be brief.');
    expect(instruction).toContain('"required":["city","celsius"]');
  });
});

describe('strictFit: a schema as OpenAI’s strict mode takes it', () => {
  const closed = (properties: Record<string, unknown>, extra: object = {}) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });
  const nested = closed(
    { list: { type: 'array', items: closed({ b: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/c' }] } }) } },
    { $defs: { c: closed({ d: { type: 'number' } }) } },
  );

  it('takes closed objects with every property required, nested in arrays, anyOf and $defs, as they are', () => {
    expect(strictFit(closed({ a: { type: 'string' } }))).toEqual(closed({ a: { type: 'string' } }));
    expect(strictFit(nested)).toEqual(nested);
  });

  it('closes objects that leave additionalProperties unset, wherever they are, and leaves the schema given untouched', () => {
    const open = {
      type: 'object',
      properties: { inner: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } },
      required: ['inner'],
    };
    const before = structuredClone(open);

    expect(strictFit(open)).toEqual(closed({ inner: closed({ x: { type: 'string' } }) }));
    expect(open).toEqual(before);
  });

  it.each([
    ['an optional property', { ...closed({ a: { type: 'string' }, b: { type: 'string' } }), required: ['a'] }],
    ['an object that allows others', { ...closed({ a: { type: 'string' } }), additionalProperties: true }],
    [
      'an open object in a $def',
      closed({ a: { $ref: '#/$defs/c' } }, { $defs: { c: { type: 'object', properties: { x: { type: 'string' } } } } }),
    ],
    ['a keyword strict mode lacks (allOf)', closed({ a: { allOf: [{ type: 'string' }] } })],
  ])('refuses a schema with %s', (_what, schema) => {
    expect(strictFit(schema)).toBeUndefined();
  });
});
