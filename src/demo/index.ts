// The offline demo model: a scripted, Anthropic-compatible endpoint that needs no network or key.
export { startDemoModel, startDemoServer } from './server.js';
export type { DemoModel, DemoModelOptions } from './server.js';
export { respond } from './responder.js';
export type { DemoReply, DemoReplyBlock, DemoStopReason } from './responder.js';
export { DEMO_MODEL_CARD, DEMO_MODEL_ID, DEMO_BANNER } from './card.js';
export { DEMO_TOOLS } from './vocabulary.js';
export { DemoRequestError } from './errors.js';
