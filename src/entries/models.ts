// The `indusagi/models` entry: what the runtime knows of a model (cards: window, output cap, prices),
// how a `string | ModelInvoker` becomes the model a run uses, a fallback chain between models, token
// usage and its cost, and what a provider author needs (the `ModelInvoker` seam's shapes, the stream limits
// every provider applies). `ModelCard` and `ModelInvoker` live in indusagi/runtime (CONTRACT.md's row), the
// model errors in indusagi/errors: one home per name.
export {
  modelCard,
  modelFamily,
  knownModelCards,
  registerModelCard,
  resolveModel,
  cardLookup,
  DEFAULT_MODEL_CARD,
} from '../runtime/models/index.js';
export type { ResolvedModel, CardOverrides } from '../runtime/models/index.js';
export { fallbackModels, isOutage } from '../runtime/routing/index.js';
export type { FallbackOptions } from '../runtime/routing/index.js';
export {
  zeroUsage,
  addUsage,
  sumUsage,
  estimateCost,
  sessionCost,
  describeUsage,
  describeCost,
  UNKNOWN_MODEL,
} from '../runtime/usage/index.js';
export type { CostEstimate, SessionCost, ModelCost } from '../runtime/usage/index.js';
export { parsePartialJson } from '../runtime/loop/index.js';
export type { PartialJson } from '../runtime/loop/index.js';
export type {
  ModelControls,
  ModelPricing,
  ModelReply,
  ModelRequest,
  ModelRetry,
  ModelTool,
  ModelUsage,
  ProviderOptions,
  ResponseFormat,
  StopReason,
  ThinkingControl,
  ToolChoice,
} from '../runtime/contract/index.js';
export {
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_EVENT_BYTES,
  StreamEventTooLargeError,
  StreamIdleError,
  StreamLimitsError,
} from '../providers/shared/index.js';
export type { StreamLimits } from '../providers/shared/index.js';
