import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { cappedFetch, fromAiSdk } from '../../../src/providers/ai-sdk/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { anthropicHarness } from '../../support/anthropic-harness.js';
import { AI_SDK_MODEL, openaiHarness } from '../../support/openai-harness.js';

// The AI SDK's own providers (specification v4, ai 7) against the loopback servers: the real provider
// code builds the requests and parses the streams; fromAiSdk sees only the specification. Each provider
// reads its streams through `cappedFetch`, as docs/providers.md tells users to.
modelInvokerContract('fromAiSdk(@ai-sdk/openai 4, Responses API)', () =>
  openaiHarness(
    (server, limits) =>
      fromAiSdk(
        createOpenAI({
          baseURL: server.baseURL,
          apiKey: 'test-key',
          fetch: cappedFetch({ maxEventBytes: limits?.maxEventBytes }),
        }).responses(AI_SDK_MODEL),
        { idleTimeoutMs: limits?.idleTimeoutMs },
      ),
    AI_SDK_MODEL,
  ),
);

modelInvokerContract('fromAiSdk(@ai-sdk/anthropic 4, Messages API)', () =>
  anthropicHarness(
    (server, limits) =>
      fromAiSdk(
        createAnthropic({
          baseURL: `${server.baseURL}/v1`,
          apiKey: 'test-key',
          fetch: cappedFetch({ maxEventBytes: limits?.maxEventBytes }),
        }).messages(AI_SDK_MODEL),
        { idleTimeoutMs: limits?.idleTimeoutMs },
      ),
    AI_SDK_MODEL,
  ),
);
