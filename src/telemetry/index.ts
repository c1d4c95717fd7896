// The public face of `indusagi/telemetry`: OpenTelemetry GenAI spans and metrics for agents, model
// calls, tools, condensation, sessions and memory. The only place in the package that loads
// `@opentelemetry/api` (an optional peer dependency); nothing else imports this folder.
export { createTelemetry } from './telemetry.js';
export type { Telemetry } from './telemetry.js';
export type { TelemetryOptions } from './instrumentation.js';
export type { MemoryStoreTelemetryOptions } from './memory-store.js';
export type { EvalCaseInfo, EvalCaseOutcome } from './eval-case.js';
export { TelemetryOptionsError } from './errors.js';
export * as conventions from './conventions.js';
