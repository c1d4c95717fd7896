import { IndusagiError } from '../errors/index.js';

/**
 * A schema that cannot be used, refused where it is defined rather than on the first call: not an
 * object, a Standard Schema whose library cannot produce a JSON Schema for the model (and no JSON Schema
 * given beside it), or a library that fails to produce one (zod cannot express `z.date()`, say).
 */
export class SchemaDefinitionError extends IndusagiError {
  static override readonly errorName: string = 'SchemaDefinitionError';
  constructor(
    readonly what: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('invalid_schema', `${what}: ${detail}`, options);
  }
}
