import { context as contexts, trace, SpanKind } from '@opentelemetry/api';
import {
  ATTR_CONVERSATION_ID,
  ATTR_EVAL_CASE_ID,
  ATTR_EVAL_CASE_STATUS,
  ATTR_EVAL_NAME,
  ATTR_EVAL_RUN_ID,
  ATTR_EVAL_SCORE_PREFIX,
  ATTR_OPERATION_NAME,
  OP_EVALUATE_CASE,
} from './conventions.js';
import type { Instrumentation } from './instrumentation.js';
import { failSpan, failSpanWith } from './spans.js';

/** Which case of which evaluation run a span is for (what `evaluate` gives `telemetry.evalCase`). */
export type EvalCaseInfo = { evaluation: string; runId: string; caseId: string; sessionId: string };

/** What a case came to, as `evaluate` reports it: enough to describe the span (the evals types are not imported here). */
export type EvalCaseOutcome = {
  status: string;
  scores: ReadonlyArray<{ name: string; score: number }>;
  error?: { kind: string; message: string };
};

/**
 * Runs one evaluation case inside an `evaluate_case <evaluation>` span, current while it runs, so the
 * case's agent runs (`invoke_agent`, traced by the same or another `createTelemetry`) and its judges'
 * calls nest under it. The span gets the case's status and every score; a case that did not settle
 * fails it with its error's kind.
 */
export async function traceEvalCase<R extends EvalCaseOutcome>(
  inst: Instrumentation,
  info: EvalCaseInfo,
  work: () => Promise<R>,
): Promise<R> {
  const parent = contexts.active();
  const span = inst.tracer.startSpan(
    `${OP_EVALUATE_CASE} ${info.evaluation}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [ATTR_OPERATION_NAME]: OP_EVALUATE_CASE,
        [ATTR_EVAL_NAME]: info.evaluation,
        [ATTR_EVAL_RUN_ID]: info.runId,
        [ATTR_EVAL_CASE_ID]: info.caseId,
        [ATTR_CONVERSATION_ID]: info.sessionId,
      },
    },
    parent,
  );
  let outcome: R;
  try {
    outcome = await contexts.with(trace.setSpan(parent, span), work);
  } catch (error) {
    failSpanWith(span, error, inst.captureContent);
    span.end();
    throw error;
  }
  span.setAttribute(ATTR_EVAL_CASE_STATUS, outcome.status);
  for (const s of outcome.scores) span.setAttribute(`${ATTR_EVAL_SCORE_PREFIX}${s.name}`, s.score);
  if (outcome.status !== 'settled')
    failSpan(
      span,
      outcome.error?.kind ?? outcome.status,
      inst.captureContent ? (outcome.error?.message ?? outcome.status) : (outcome.error?.kind ?? outcome.status),
    );
  span.end();
  return outcome;
}
