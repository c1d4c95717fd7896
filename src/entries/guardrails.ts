// The `indusagi/guardrails` entry: checks beside the model call that can trip a run
// (`AgentConfig.inputGuardrails`, `outputGuardrails`), two built-in ones, and their errors.
export {
  maxPromptSize,
  denyToolArguments,
  GuardrailDefinitionError,
  GuardrailTripwireTriggered,
  InputGuardrailTripwireTriggered,
  OutputGuardrailTripwireTriggered,
} from '../runtime/guardrails/index.js';
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
