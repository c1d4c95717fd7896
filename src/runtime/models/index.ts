// Models: what the runtime knows of a model (cards: window, output cap, prices; an invoker's own, built in
// or registered), and how a `string | ModelInvoker` becomes the invoker, id and card an agent runs.
export { modelCard, modelFamily, knownModelCards, registerModelCard, DEFAULT_MODEL_CARD } from './cards.js';
export { checkModelCard } from './check.js';
export { ModelCardError, ModelChoiceError, UnsupportedContentError } from './errors.js';
export { checkContent } from './content.js';
export { resolveModel, cardLookup, invokerTraits } from './resolve.js';
export type { ResolvedModel, CardOverrides, InvokerTraits } from './resolve.js';
