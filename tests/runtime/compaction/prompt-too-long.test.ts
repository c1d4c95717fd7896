import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IndusagiError, ModelCallError, PromptTooLongError } from '../../../src/entries/errors.js';
import { isPromptTooLongError, reportedPromptTokens } from '../../../src/runtime/compaction/index.js';

// A loopback peer answering every request with the status and error body queued for it, so the
// errors below are the real SDK's, built from a real HTTP response.
let server: Server;
let client: Anthropic;
const answers: { status: number; message: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { status, message } = answers.shift() ?? { status: 500, message: 'no answer queued' };
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${port}`, maxRetries: 0 });
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function apiError(status: number, message: string): Promise<unknown> {
  answers.push({ status, message });
  return client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );
}

describe('isPromptTooLongError', () => {
  it('recognises the API 400 for a prompt over the window, and reads the size it reports', async () => {
    const error = await apiError(400, 'prompt is too long: 215000 tokens > 200000 maximum');
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(isPromptTooLongError(error)).toBe(true);
    expect(reportedPromptTokens(error)).toBe(215_000);
  });

  it('recognises the 400 for a prompt plus max_tokens over the window', async () => {
    const error = await apiError(
      400,
      'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again',
    );
    expect(isPromptTooLongError(error)).toBe(true);
    expect(reportedPromptTokens(error)).toBe(188_240);
  });

  it('looks through an invoker that wraps the SDK error in its own typed error', async () => {
    const sdkError = await apiError(400, 'prompt is too long: 1200000 tokens > 1000000 maximum');
    const wrapped = new IndusagiError('model_error', 'the model call failed', { cause: sdkError });
    expect(isPromptTooLongError(wrapped)).toBe(true);
    expect(reportedPromptTokens(wrapped)).toBe(1_200_000);
  });

  it('does not mistake other failures for an over-long prompt', async () => {
    expect(isPromptTooLongError(await apiError(400, 'messages: roles must alternate between "user" and "assistant"'))).toBe(false);
    expect(isPromptTooLongError(await apiError(529, 'Overloaded'))).toBe(false);
    expect(isPromptTooLongError(new Error('prompt is too long'))).toBe(false);
    expect(isPromptTooLongError(undefined)).toBe(false);
    expect(reportedPromptTokens(new Error('boom'))).toBeUndefined();
  });
});

describe('PromptTooLongError, the typed form every invoker throws', () => {
  it('is recognised whatever its wording, also down a cause chain, with the size the API reported', () => {
    const typed = new PromptTooLongError('Your input exceeds the context window of this model.', { status: 400, promptTokens: 130_532 });
    const wrapped = new Error('the summarizer call failed', { cause: typed });

    expect(isPromptTooLongError(typed)).toBe(true);
    expect(isPromptTooLongError(wrapped)).toBe(true);
    expect(reportedPromptTokens(wrapped)).toBe(130_532);
    expect(ModelCallError.isInstance(typed)).toBe(true);
    expect(typed).toMatchObject({ kind: 'model_error', status: 400 });
  });

  it('is not confused with another failed call of the same status', () => {
    expect(isPromptTooLongError(new ModelCallError('Invalid value for tools[0].name.', { status: 400 }))).toBe(false);
  });
});
