import { IndusagiError } from '../errors/index.js';
import { ERROR_OTHER } from './conventions.js';

/**
 * The low-cardinality `error.type` of a failure: the HTTP status when the error carries one (`429`,
 * `529`: what a dashboard groups rate limits and overloads by), else the error's class name
 * (`ModelCallError`, `RunAbortedError`, `ToolError`...), else `_OTHER`.
 */
export function errorTypeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return ERROR_OTHER;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return String(status);
  if (IndusagiError.isInstance(error)) return error.name;
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' && name !== '' && name !== 'Error' ? name : ERROR_OTHER;
}

/**
 * A failure as a span's status says it when content is not captured: the error's class, with its
 * `kind` when it has one (`ModelCallError (model_error)`, `ToolError (tool_error)`, `RangeError`), and
 * never its message. `_OTHER` for a thrown value that is not an error.
 */
export function errorClassOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return ERROR_OTHER;
  const name = (error as { name?: unknown }).name;
  const kind = (error as { kind?: unknown }).kind;
  const className = typeof name === 'string' && name !== '' ? name : (error.constructor?.name ?? ERROR_OTHER);
  return typeof kind === 'string' && kind !== '' ? `${className} (${kind})` : className;
}
