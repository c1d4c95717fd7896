import { context as contexts, trace, SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { errorMessage } from '../errors/index.js';
import { ATTR_ERROR_TYPE } from './conventions.js';
import { errorTypeOf } from './error-type.js';

/** Marks `span` failed the way the conventions' "recording errors" asks: `error.type` and an error status. */
export function failSpan(span: Span, errorType: string, message?: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus(message === undefined ? { code: SpanStatusCode.ERROR } : { code: SpanStatusCode.ERROR, message });
}

/** `failSpan` for a thrown value; returns its `error.type`. */
export function failSpanWith(span: Span, error: unknown): string {
  const type = errorTypeOf(error);
  failSpan(span, type, errorMessage(error));
  return type;
}

/** Seconds since `startedAt` (a `performance.now()` reading): the unit of every duration metric. */
export function secondsSince(startedAt: number): number {
  return (performance.now() - startedAt) / 1000;
}

/**
 * Runs `work` inside an INTERNAL span, current while it runs (so a driver's own spans nest under it),
 * then adds what `describe` says of the result; a throw fails the span and is rethrown as it was.
 */
export async function inInternalSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
  describe: (result: T) => Attributes | undefined,
): Promise<T> {
  const parent = contexts.active();
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
  let result: T;
  try {
    result = await contexts.with(trace.setSpan(parent, span), work);
  } catch (error) {
    failSpanWith(span, error);
    span.end();
    throw error;
  }
  const described = describe(result);
  if (described !== undefined) span.setAttributes(described);
  span.end();
  return result;
}
