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
