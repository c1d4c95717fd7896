import { context as contexts, trace, SpanKind, SpanStatusCode, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { errorMessage } from '../errors/index.js';
import { ATTR_ERROR_TYPE } from './conventions.js';
import { errorClassOf, errorTypeOf } from './error-type.js';

/**
 * Marks `span` failed the way the conventions' "recording errors" asks: `error.type` and an error
 * status, whose message is `message` (given only when content is captured) or else `errorType`.
 */
export function failSpan(span: Span, errorType: string, message: string = errorType): void {
  span.setAttribute(ATTR_ERROR_TYPE, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/**
 * `failSpan` for a thrown value; returns its `error.type`. The status message is the error's own only
 * when content is captured: a message can hold what content capture keeps out (a ToolError is tool
 * output, an internal exception is what the model is only shown as "Internal error", an API error
 * carries the provider's response body). Otherwise it is the error's class and kind.
 */
export function failSpanWith(span: Span, error: unknown, captureContent: boolean): string {
  const type = errorTypeOf(error);
  failSpan(span, type, captureContent ? errorMessage(error) : errorClassOf(error));
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
  captureContent: boolean,
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
    failSpanWith(span, error, captureContent);
    span.end();
    throw error;
  }
  const described = describe(result);
  if (described !== undefined) span.setAttributes(described);
  span.end();
  return result;
}
