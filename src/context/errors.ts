import { IndusagiError } from '../errors/index.js';
import { ToolError } from '../runtime/tools/index.js';
import type { SchemaIssue } from '../schema/index.js';

/** Bad options or a malformed turn handed to the context manager or a source factory. */
export class ContextInputError extends IndusagiError {
  static override readonly errorName: string = 'ContextInputError';
  constructor(message: string) {
    super('context_input', message);
  }
}

/** A source, the history compactor or the token counter returned something the manager cannot use. */
export class ContextSourceError extends IndusagiError {
  static override readonly errorName: string = 'ContextSourceError';
  constructor(message: string) {
    super('context_source', message);
  }
}

/**
 * Why an `update_working_memory` call wrote nothing, as the model reads it (a tool error result, never a
 * failed run): `input` (neither or both of patch and content, content without its version, content a
 * store cannot keep), `too_long` (past `maxChars`), `schema` (`issues` lists what does not match),
 * `conflict` (the block moved past the version given; `currentVersion` is where it is now).
 */
export class WorkingMemoryUpdateError extends ToolError {
  static override readonly errorName: string = 'WorkingMemoryUpdateError';
  readonly issues?: SchemaIssue[];
  readonly currentVersion?: number;
  constructor(
    readonly reason: 'input' | 'too_long' | 'schema' | 'conflict',
    message: string,
    details: { issues?: SchemaIssue[]; currentVersion?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: details.cause });
    if (details.issues !== undefined) this.issues = details.issues;
    if (details.currentVersion !== undefined) this.currentVersion = details.currentVersion;
  }
}
