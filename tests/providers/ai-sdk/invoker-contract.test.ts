import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { fromAiSdk } from '../../../src/providers/ai-sdk/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { anthropicHarness } from '../../support/anthropic-harness.js';
import { AI_SDK_MODEL, openaiHarness } from '../../support/openai-harness.js';

// The AI SDK's own providers (specification v4, ai 7) against the loopback servers: the real provider
// code builds the requests and parses the streams; fromAiSdk sees only the specification.
modelInvokerContract('fromAiSdk(@ai-sdk/openai 4, Responses API)', () =>
  openaiHarness((server) => fromAiSdk(createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).responses(AI_SDK_MODEL)), AI_SDK_MODEL),
);

modelInvokerContract('fromAiSdk(@ai-sdk/anthropic 4, Messages API)', () =>
  anthropicHarness(
    (server) => fromAiSdk(createAnthropic({ baseURL: `${server.baseURL}/v1`, apiKey: 'test-key' }).messages(AI_SDK_MODEL)),
    AI_SDK_MODEL,
  ),
);
