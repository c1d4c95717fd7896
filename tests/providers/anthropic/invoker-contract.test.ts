import { createAnthropicInvoker } from '../../../src/providers/anthropic/index.js';
import { modelInvokerContract } from '../../runtime/contract/model-invoker-contract.js';
import { anthropicHarness } from '../../support/anthropic-harness.js';

modelInvokerContract('createAnthropicInvoker (@anthropic-ai/sdk, Messages API)', () =>
  anthropicHarness((server, limits) => createAnthropicInvoker(server.client({ maxRetries: 2 }), limits)),
);
