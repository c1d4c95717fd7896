import { IndusagiError } from '../../errors/index.js';

/**
 * Throw from a tool's `execute` to tell the model what went wrong: its message reaches the model as
 * the tool result, marked `is_error`. Any other thrown error reaches the model only as `Internal error`.
 */
export class ToolError extends IndusagiError {
  static override readonly errorName: string = 'ToolError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('tool_error', message, options);
  }
}
