// The same contract through openai 6, the last major that supports Node 20 (openai 7 requires Node 22),
// so the optional peer range `^6 || ^7` is what the suite proves.
import OpenAI from 'openai-v6';
import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { openaiHarness } from '../../support/openai-harness.js';

modelInvokerContract('createOpenAIInvoker (openai 6)', () =>
  openaiHarness((server, limits) =>
    createOpenAIInvoker(new OpenAI({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 2, logLevel: 'off' }), limits),
  ),
);
