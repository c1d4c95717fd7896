// The `indusagi/testing` entry: what a project needs to test its own agent offline. The scripted
// loopback Anthropic server (src/testing) and the offline demo model, on it (src/demo) or in process (`demoModel`).
export * from '../testing/index.js';
export { startDemoModel, demoModel, DEMO_MODEL_CARD, DEMO_MODEL_ID, DEMO_TOOLS, DemoRequestError } from '../demo/index.js';
export type { DemoModel, DemoModelOptions } from '../demo/index.js';
