// The `indusagi/testing` entry: what a project needs to test its own agent offline. The scripted
// loopback Anthropic server (src/testing) and the offline demo model built on it (src/demo).
export * from '../testing/index.js';
export { startDemoModel, DEMO_MODEL_CARD, DEMO_MODEL_ID, DEMO_TOOLS, DemoRequestError } from '../demo/index.js';
export type { DemoModel, DemoModelOptions } from '../demo/index.js';
