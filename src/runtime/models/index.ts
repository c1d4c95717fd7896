export { modelCard, knownModelCards, DEFAULT_MODEL_CARD } from './cards.js';
