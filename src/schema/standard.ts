import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardJSONSchemaV1, StandardSchemaV1 };

/** What a Standard Schema's `validate` resolves to, sync or async. */
export type StandardResult<Output> = StandardSchemaV1.Result<Output>;

/**
 * True for a Standard Schema (zod 4, valibot, arktype and others): an object, or a function as arktype's
 * types are, with a `~standard` property of version 1 that can `validate`.
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return (
    typeof props === 'object' &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === 'function'
  );
}

/** True when the schema also implements the Standard JSON Schema extension (`~standard.jsonSchema.input`). */
export function hasJsonSchemaConverter(schema: StandardSchemaV1): schema is StandardSchemaV1 & StandardJSONSchemaV1 {
  const converter = (schema['~standard'] as { jsonSchema?: { input?: unknown } }).jsonSchema;
  return typeof converter === 'object' && converter !== null && typeof converter.input === 'function';
}
