// What fromAiSdk sends beyond text, through real AI SDK providers and the loopback servers: images and
// documents as the specification's file parts (v4 and v3), a required JSON answer as its responseFormat,
// and what a model's card refuses or asks for instead. Each provider's own wire format shows the result.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAI as createOpenAIv3 } from '@ai-sdk/openai-v3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, type PromptBlock } from '../../../src/entries/runtime.js';
import { registerModelCard } from '../../../src/runtime/models/index.js';
import { fromAiSdk } from '../../../src/providers/ai-sdk/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { pdfBase64, pngBase64 } from '../../support/media.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../../support/openai-server.js';

let openaiServer: OpenAITestServer;
let anthropicServer: AnthropicTestServer;
const removals: Array<() => void> = [];
beforeEach(async () => {
  openaiServer = await startOpenAIServer();
  anthropicServer = await startAnthropicServer();
});
afterEach(async () => {
  for (const remove of removals.splice(0)) remove();
  await Promise.all([openaiServer.close(), anthropicServer.close()]);
});

const png = pngBase64(640, 480);
const pdf = pdfBase64(2);
const prompt: PromptBlock[] = [
  { kind: 'text', text: 'Compare these.' },
  { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: png } },
  { kind: 'image', source: { type: 'url', url: 'https://example.test/chart.png' } },
  { kind: 'document', title: 'Q3 report', source: { type: 'base64', mediaType: 'application/pdf', data: pdf } },
  { kind: 'document', title: 'Q4', source: { type: 'url', url: 'https://example.test/q4.pdf' } },
  { kind: 'document', title: 'Notes', source: { type: 'text', text: 'Revenue rose 4%.' } },
];
const notes = '<document title="Notes">\nRevenue rose 4%.\n</document>';
const forecast = z.object({ city: z.string(), celsius: z.number() });

const openaiModels = {
  '@ai-sdk/openai 4 (specification v4)': (id = 'gpt-5') => createOpenAI({ baseURL: openaiServer.baseURL, apiKey: 'k' }).responses(id),
  '@ai-sdk/openai 3 (specification v3)': (id = 'gpt-5') => createOpenAIv3({ baseURL: openaiServer.baseURL, apiKey: 'k' }).responses(id),
};
const claude = () => createAnthropic({ baseURL: `${anthropicServer.baseURL}/v1`, apiKey: 'k' }).messages('claude-sonnet-4-5');

describe.each(Object.entries(openaiModels))('over %s and the Responses API', (_name, model) => {
  const agent = (id = 'gpt-5') => createAgent({ model: id }, { invokeModel: fromAiSdk(model()) });

  it('sends images and PDFs, inline and by URL, as input_image and input_file parts, and a text document as text', async () => {
    openaiServer.enqueue(response.text('Both rise.'));

    await agent().submit(prompt);

    expect(openaiServer.requests[0].body.input).toEqual([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Compare these.' },
          { type: 'input_image', image_url: `data:image/png;base64,${png}` },
          { type: 'input_image', image_url: 'https://example.test/chart.png' },
          { type: 'input_file', filename: 'Q3 report', file_data: `data:application/pdf;base64,${pdf}` },
          { type: 'input_file', file_url: 'https://example.test/q4.pdf' },
          { type: 'input_text', text: notes },
        ],
      },
    ]);
  });

  it('sends a required answer as text.format json_schema, strict where strict mode takes the schema, and parses it', async () => {
    openaiServer.enqueue(response.text('{"city":"Pune","celsius":31}'), response.text('{"city":"Pune"}'));

    const strict = await agent().submit('Forecast?', { output: forecast });
    const loose = await agent().submit('Forecast?', { output: forecast.partial({ celsius: true }) });

    expect(strict.output).toEqual({ city: 'Pune', celsius: 31 });
    expect(loose.output).toEqual({ city: 'Pune' });
    expect(openaiServer.requests[0].body.text.format).toMatchObject({
      type: 'json_schema',
      strict: true,
      schema: { type: 'object', required: ['city', 'celsius'], additionalProperties: false },
    });
    expect(openaiServer.requests[1].body.text.format).toMatchObject({ type: 'json_schema', strict: false, schema: { required: ['city'] } });
  });

  it('sends the schema as an instruction in a last system message for a model whose card asks for one', async () => {
    removals.push(registerModelCard({ id: 'local-llama', contextWindow: 32_000, maxOutputTokens: 4_000, structuredOutput: 'instruction' }));
    openaiServer.enqueue(response.text('{"city":"Pune","celsius":31}'));

    // A local model behind an OpenAI-compatible server: the invoker is built for it, its card says how it answers.
    const snapshot = await createAgent({ model: fromAiSdk(model('local-llama')), system: 'Be brief.' }).submit('Forecast?', {
      output: forecast,
    });

    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31 });
    const body = openaiServer.requests[0].body;
    expect(body.text?.format).toBeUndefined();
    const system = body.input.filter((item: { role: string }) => item.role === 'system' || item.role === 'developer');
    expect(system.map((item: { content: string }) => item.content)).toEqual([
      'Be brief.',
      expect.stringMatching(/^Your final answer \(after any tool calls\) must be one JSON value .*"required":\["city","celsius"\]/s),
    ]);
  });

  it('refuses an image for a model whose card says it takes none, before any request; a text document still goes', async () => {
    removals.push(registerModelCard({ id: 'local-llama', contextWindow: 32_000, maxOutputTokens: 4_000, input: { images: false } }));
    openaiServer.enqueue(response.text('Noted.'));
    const invoke = fromAiSdk(model('local-llama'));
    const ask = (blocks: PromptBlock[]) =>
      invoke({ model: 'local-llama', messages: [{ role: 'user', blocks }], tools: [], maxOutputTokens: 100 });

    const error = await ask([prompt[1]]).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'UnsupportedContentError', kind: 'invalid_request', content: 'images' });
    expect(openaiServer.requests).toHaveLength(0);

    await ask([prompt[5]]);
    expect(openaiServer.requests[0].body.input).toEqual([{ role: 'user', content: [{ type: 'input_text', text: notes }] }]);
  });
});

describe('over @ai-sdk/anthropic and the Messages API', () => {
  it('sends images and PDFs as image and document blocks, titled, and a text document as text', async () => {
    anthropicServer.enqueue(reply.text('Both rise.'));

    await createAgent({ model: 'claude-sonnet-4-5' }, { invokeModel: fromAiSdk(claude()) }).submit(prompt);

    expect(anthropicServer.requests[0].body.messages[0].content).toMatchObject([
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'image', source: { type: 'url', url: 'https://example.test/chart.png' } },
      { type: 'document', title: 'Q3 report', source: { type: 'base64', media_type: 'application/pdf', data: pdf } },
      { type: 'document', title: 'Q4', source: { type: 'url', url: 'https://example.test/q4.pdf' } },
      { type: 'text', text: notes },
    ]);
  });

  it('sends a required answer as Claude’s structured output format and parses it', async () => {
    anthropicServer.enqueue(reply.text('{"city":"Pune","celsius":31}'));

    const snapshot = await createAgent({ model: 'claude-sonnet-4-5' }, { invokeModel: fromAiSdk(claude()) }).submit('Forecast?', {
      output: forecast,
    });

    expect(snapshot.output).toEqual({ city: 'Pune', celsius: 31 });
    expect(anthropicServer.requests[0].body.output_config.format).toMatchObject({
      type: 'json_schema',
      schema: { type: 'object', required: ['city', 'celsius'] },
    });
  });
});
