// Model cards: what the runtime knows of a model (window, output cap, prices), built in or registered.
export { modelCard, knownModelCards, registerModelCard, DEFAULT_MODEL_CARD } from './cards.js';
export { checkModelCard } from './check.js';
export { ModelCardError } from './errors.js';
