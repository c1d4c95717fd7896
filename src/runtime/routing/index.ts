// Routing a call between models: a vendor-free fallback chain (the next model answers when one is out).
export { fallbackModels, isOutage } from './fallback.js';
export type { FallbackOptions } from './fallback.js';
