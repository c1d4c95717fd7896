import { context as contexts, trace, SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import type { GuardrailResult, GuardrailTrip, InputGuardrail, OutputGuardrail, RunEvent } from '../runtime/contract/index.js';
import {
  ATTR_CONVERSATION_ID,
  ATTR_GUARDRAIL_MESSAGE,
  ATTR_GUARDRAIL_NAME,
  ATTR_GUARDRAIL_STAGE,
  ATTR_GUARDRAIL_TRIGGERED,
  ATTR_TOOL_CALL_ID,
  ATTR_TOOL_NAME,
  EVENT_GUARDRAIL_TRIPPED,
  SPAN_GUARDRAIL,
} from './conventions.js';
import type { AgentTrace } from './run-scope.js';
import { failSpanWith } from './spans.js';

type Guardrail = InputGuardrail | OutputGuardrail;

/**
 * A guardrail whose every check is an `indusagi.guardrail {name}` span under the run's span: what it
 * checked (`indusagi.guardrail.stage`, the tool call), whether it tripped (`indusagi.guardrail.triggered`),
 * and what it threw. The trip itself is an event on the run's span (see `guardrailTripped`).
 */
export function traceGuardrail<G extends Guardrail>(guardrail: G, agent: AgentTrace): G {
  // Not a guardrail at all: left as it is, for the conductor to refuse with its own error.
  if (typeof guardrail !== 'object' || guardrail === null || typeof guardrail.execute !== 'function') return guardrail;
  const execute = guardrail.execute as (args: Parameters<G['execute']>[0]) => GuardrailResult | Promise<GuardrailResult>;
  return {
    ...guardrail,
    execute(args: Parameters<G['execute']>[0]) {
      const { run, parent } = agent.locate(contexts.active());
      if (run === undefined) return execute.call(guardrail, args);
      const attributes: Attributes = {
        [ATTR_GUARDRAIL_NAME]: guardrail.name,
        [ATTR_GUARDRAIL_STAGE]: 'stage' in args ? args.stage : 'input',
        [ATTR_CONVERSATION_ID]: run.sessionId,
      };
      if ('call' in args) {
        attributes[ATTR_TOOL_NAME] = args.call.name;
        attributes[ATTR_TOOL_CALL_ID] = args.call.callId;
      }
      const span = run.agent.inst.tracer.startSpan(`${SPAN_GUARDRAIL} ${guardrail.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
      const ended = (result: GuardrailResult): GuardrailResult => {
        if (typeof result?.tripwireTriggered === 'boolean') span.setAttribute(ATTR_GUARDRAIL_TRIGGERED, result.tripwireTriggered);
        span.end();
        return result;
      };
      const failed = (error: unknown): never => {
        failSpanWith(span, error, run.agent.inst.captureContent);
        span.end();
        throw error;
      };
      try {
        const out = contexts.with(trace.setSpan(parent, span), execute, guardrail, args);
        return isThenable(out) ? Promise.resolve(out).then(ended, failed) : ended(out);
      } catch (error) {
        return failed(error);
      }
    },
  } as G;
}

/**
 * A trip, on the run's span: the guardrail's name and stage as attributes, and an
 * `indusagi.guardrail_tripped` event; its message only with `captureContent` (it may quote what it checked).
 */
export function guardrailTripped(span: Span, event: Extract<RunEvent, { kind: 'guardrail_tripped' }>, captureContent: boolean): void {
  span.setAttributes({ [ATTR_GUARDRAIL_NAME]: event.trip.guardrail, [ATTR_GUARDRAIL_STAGE]: event.trip.stage });
  span.addEvent(EVENT_GUARDRAIL_TRIPPED, tripAttributes(event.trip, captureContent));
}

function tripAttributes(trip: GuardrailTrip, captureContent: boolean): Attributes {
  const attributes: Attributes = { [ATTR_GUARDRAIL_NAME]: trip.guardrail, [ATTR_GUARDRAIL_STAGE]: trip.stage };
  if (captureContent) attributes[ATTR_GUARDRAIL_MESSAGE] = trip.message;
  if (trip.toolName !== undefined) attributes[ATTR_TOOL_NAME] = trip.toolName;
  if (trip.callId !== undefined) attributes[ATTR_TOOL_CALL_ID] = trip.callId;
  return attributes;
}

function isThenable(value: unknown): value is PromiseLike<GuardrailResult> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
