// Models: what the runtime knows of a model (cards: window, output cap, prices, built in or registered),
export { modelCard, modelFamily, knownModelCards, registerModelCard, DEFAULT_MODEL_CARD } from './cards.js';
export { checkModelCard } from './check.js';
export { ModelCardError, ModelChoiceError } from './errors.js';
export { resolveModel, cardLookup, modelIdOf, invokerTraits, boundModel } from './resolve.js';
export type { ResolvedModel, CardOverrides, InvokerTraits } from './resolve.js';
