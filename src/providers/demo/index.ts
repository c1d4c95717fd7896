// The offline demo model's responder: a pure function from an Anthropic Messages request body to a
// scripted reply, with its card and vocabulary. The loopback server (src/demo) and the in-process
// invoker (providers/anthropic/demo-model.ts) both answer through it.
export { respond } from './responder.js';
export type { DemoReply, DemoReplyBlock, DemoStopReason } from './responder.js';
export { DEMO_MODEL_CARD, DEMO_MODEL_ID, DEMO_BANNER } from './card/index.js';
export { DEMO_TOOLS } from './vocabulary.js';
export type { DemoToolKey } from './vocabulary.js';
export { DemoRequestError } from './errors.js';
