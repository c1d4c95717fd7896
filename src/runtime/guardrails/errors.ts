import { IndusagiError } from '../../errors/index.js';
import type { GuardrailStage, GuardrailTrip } from '../contract/guardrail.js';

const CHECKED: Record<GuardrailStage, string> = { input: 'the prompt', answer: 'the answer', tool_call: 'a tool call' };

/**
 * A guardrail tripped. The run's `RunFault` (kind `guardrail_tripped`) has this as its `cause`: `trip`
 * says which guardrail, what it checked and why; `outputInfo` is what the guardrail added. Catch the
 * input and output cases apart with `InputGuardrailTripwireTriggered` and
 * `OutputGuardrailTripwireTriggered` (the names OpenAI Agents uses), or both with this class.
 */
export class GuardrailTripwireTriggered extends IndusagiError {
  static override readonly errorName: string = 'GuardrailTripwireTriggered';
  constructor(
    readonly trip: GuardrailTrip,
    readonly outputInfo?: unknown,
    options?: { cause?: unknown },
  ) {
    const call = trip.callId === undefined ? '' : ` (${trip.toolName ?? 'tool'} ${trip.callId})`;
    super('guardrail_tripped', `Guardrail "${trip.guardrail}" tripped on ${CHECKED[trip.stage]}${call}: ${trip.message}`, options);
  }

  /** The error for `trip`: an input guardrail's or an output guardrail's. */
  static of(trip: GuardrailTrip, outputInfo?: unknown, options?: { cause?: unknown }): GuardrailTripwireTriggered {
    return trip.stage === 'input'
      ? new InputGuardrailTripwireTriggered(trip, outputInfo, options)
      : new OutputGuardrailTripwireTriggered(trip, outputInfo, options);
  }
}

/** An input guardrail tripped on the prompt. */
export class InputGuardrailTripwireTriggered extends GuardrailTripwireTriggered {
  static override readonly errorName: string = 'InputGuardrailTripwireTriggered';
}

/** An output guardrail tripped on the final answer or on a tool call. */
export class OutputGuardrailTripwireTriggered extends GuardrailTripwireTriggered {
  static override readonly errorName: string = 'OutputGuardrailTripwireTriggered';
}

/** Options a built-in guardrail (`maxPromptSize`, `denyToolArguments`) cannot work with, refused when it is made. */
export class GuardrailDefinitionError extends IndusagiError {
  static override readonly errorName: string = 'GuardrailDefinitionError';
  constructor(message: string) {
    super('invalid_config', message);
  }
}
