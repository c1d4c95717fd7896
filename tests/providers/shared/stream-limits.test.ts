// Every invoker factory takes the same stream limits and refuses the same bad ones, before any request;
// a client whose streams cannot be capped is refused unless the cap is turned off outright.
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { fromAiSdk } from '../../../src/providers/ai-sdk/index.js';
import { createAnthropicInvoker } from '../../../src/providers/anthropic/index.js';
import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import type { OpenAIClientLike } from '../../../src/providers/openai/index.js';
import { StreamLimitsError } from '../../../src/providers/shared/index.js';

const anthropic = () => new Anthropic({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
const openai = () => new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' });
const aiSdkModel = () => createOpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1' }).responses('gpt-test');

describe('stream limits on every factory', () => {
  it.each([
    ['idleTimeoutMs', 0],
    ['idleTimeoutMs', -5],
    ['idleTimeoutMs', Number.NaN],
    ['idleTimeoutMs', 2 ** 31],
    ['maxEventBytes', 0],
    ['maxEventBytes', 1.5],
    ['maxEventBytes', '8MB'],
  ])('refuse %s %s with StreamLimitsError, naming it', (key, value) => {
    const limits = { [key]: value } as never;
    const message = new RegExp(`\`${key}\` must be`);
    expect(() => createAnthropicInvoker(anthropic(), limits)).toThrow(StreamLimitsError);
    expect(() => createAnthropicInvoker(anthropic(), limits)).toThrow(message);
    expect(() => createOpenAIInvoker(openai(), limits)).toThrow(message);
    if (key === 'idleTimeoutMs') expect(() => fromAiSdk(aiSdkModel(), limits)).toThrow(message);
  });

  it('take Infinity to turn either limit off', () => {
    const off = { idleTimeoutMs: Infinity, maxEventBytes: Infinity };
    expect(() => createAnthropicInvoker(anthropic(), off)).not.toThrow();
    expect(() => createOpenAIInvoker(openai(), off)).not.toThrow();
    expect(() => fromAiSdk(aiSdkModel(), { idleTimeoutMs: Infinity })).not.toThrow();
  });
});

describe('clients whose streams cannot be capped', () => {
  const bare: OpenAIClientLike = { responses: { create: async () => (async function* () {})() } };
  const noMiddleware = { messages: { stream: anthropic().messages.stream.bind(anthropic().messages) } };

  it('are refused with StreamLimitsError saying how to read them uncapped', () => {
    expect(() => createOpenAIInvoker(bare)).toThrow(/not from the `openai` package.*`maxEventBytes: Infinity`/);
    expect(() => createAnthropicInvoker(noMiddleware)).toThrow(/no per-request middleware.*`maxEventBytes: Infinity`/);
  });

  it('are taken with the cap turned off', () => {
    expect(() => createOpenAIInvoker(bare, { maxEventBytes: Infinity })).not.toThrow();
    expect(() => createAnthropicInvoker(noMiddleware, { maxEventBytes: Infinity })).not.toThrow();
  });
});
