// The offline demo model: a scripted, Anthropic-compatible endpoint that needs no network or key (its
// responder is providers/demo; `demoModel()` answers in process, with no server).
export { startDemoModel, startDemoServer } from './server.js';
export type { DemoModel, DemoModelOptions } from './server.js';
export { respond, DEMO_MODEL_CARD, DEMO_MODEL_ID, DEMO_BANNER, DEMO_TOOLS, DemoRequestError } from '../providers/demo/index.js';
export type { DemoReply, DemoReplyBlock, DemoStopReason } from '../providers/demo/index.js';
export { demoModel } from '../providers/anthropic/demo-model.js';
