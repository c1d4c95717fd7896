// The same contract through @ai-sdk/openai 3 (specification v3, the providers of ai 6, which run on
// Node 20 where ai 7's need Node 22), so both specification versions fromAiSdk accepts are proven.
import { createOpenAI } from '@ai-sdk/openai-v3';
import { cappedFetch, fromAiSdk } from '../../../src/providers/ai-sdk/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { AI_SDK_MODEL, openaiHarness } from '../../support/openai-harness.js';

modelInvokerContract('fromAiSdk(@ai-sdk/openai 3, specification v3)', () =>
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
