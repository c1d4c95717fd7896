// The conductor: an agent defined once (`defineConductor`) and opened per conversation; `createConductor`
// is one conversation of a definition (vendor-free; `defineAgent`/`createAgent` add the default model at
// the package edge). And what its callers configure, call and catch.
export { createConductor, defineConductor } from './definition.js';
export type {
  Agent,
  AgentDefinition,
  OpenOptions,
  RunOnceOptions,
  InstrumentedAgent,
  AgentConfig,
  Handoff,
  AgentTelemetry,
  ConductorDeps,
  SubmitOptions,
  CompactionOutcome,
  OutputSnapshot,
} from './types.js';
export { OutputValidationError, OUTPUT_REPAIR_PREFIX } from './structured-output.js';
export { DEFAULT_MAX_STEPS } from './settings.js';
// Every error class the conductor throws (a run's fault may carry `CheckpointError` as its cause).
export * from './errors.js';
export { Run } from './run.js';
export type { InputRequest } from './input-requests.js';
export { AgentCaller, callerOf } from './caller.js';
export type { CallerDeps, NestedEventBody } from './caller.js';
export { MAIN_AGENT, transferToolName } from './handoffs.js';
