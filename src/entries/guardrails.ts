// The `indusagi/guardrails` entry: checks beside the model call that can trip a run
// (`AgentConfig.inputGuardrails`, `outputGuardrails`) and two built-in ones. Their errors (the tripwires,
// `GuardrailDefinitionError`) live in indusagi/errors: one home per name.
export { maxPromptSize, denyToolArguments } from '../runtime/guardrails/index.js';
export type { MaxPromptSizeOptions, DeniedArgument, DenyToolArgumentsOptions } from '../runtime/guardrails/index.js';
export type {
  GuardrailContext,
  GuardrailResult,
  GuardrailStage,
  GuardrailTrip,
  InputGuardrail,
  InputGuardrailArgs,
  OutputGuardrail,
  OutputGuardrailArgs,
} from '../runtime/contract/index.js';
