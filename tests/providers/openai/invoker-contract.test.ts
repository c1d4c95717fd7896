import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { openaiHarness } from '../../support/openai-harness.js';

modelInvokerContract('createOpenAIInvoker (openai SDK, Responses API)', () =>
  openaiHarness((server, limits) => createOpenAIInvoker(server.client({ maxRetries: 2 }), limits)),
);
