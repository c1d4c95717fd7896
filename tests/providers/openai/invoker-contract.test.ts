import { createOpenAIInvoker } from '../../../src/providers/openai/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { openaiHarness } from '../../support/openai-harness.js';

// Built for one model, so the conductor half runs it as the agent's `model` (openai 6's run goes beside an id).
modelInvokerContract('createOpenAIInvoker (openai SDK, Responses API)', () =>
  openaiHarness(
    (server, limits) => createOpenAIInvoker(server.client({ maxRetries: 2 }), { model: 'test-model', ...limits }),
    'test-model',
  ),
);
