// Testing an agent offline: a loopback server speaking the Anthropic Messages wire format, scripted
// reply by reply, driven through the real SDK. Public as `indusagi/testing` (with the demo model).
export { startAnthropicServer, reply } from './anthropic-server.js';
export type {
  AnthropicServerOptions,
  AnthropicTestServer,
  HttpErrorScript,
  Interruption,
  MessageScript,
  Script,
  ScriptBlock,
  ScriptBlockFields,
  ScriptTag,
  ScriptUsage,
} from './anthropic-server.js';
export type { RecordedRequest, Responder } from './loopback.js';
export { encodeFrame } from './wire.js';
export type { WireEvent } from './wire.js';
