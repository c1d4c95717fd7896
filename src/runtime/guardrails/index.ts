// Guardrails: checks beside the model call that can trip a run (`AgentConfig.inputGuardrails`,
// `outputGuardrails`; the conductor runs them), their errors, and two built-in ones.
export {
  GuardrailTripwireTriggered,
  InputGuardrailTripwireTriggered,
  OutputGuardrailTripwireTriggered,
  GuardrailDefinitionError,
} from './errors.js';
export { maxPromptSize } from './max-prompt-size.js';
export type { MaxPromptSizeOptions } from './max-prompt-size.js';
export { denyToolArguments } from './deny-tool-arguments.js';
export type { DeniedArgument, DenyToolArgumentsOptions } from './deny-tool-arguments.js';
