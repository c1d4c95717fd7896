import { SpanStatusCode, type Span } from '@opentelemetry/api';
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
