// Schemas as indusagi takes them: a Standard Schema (zod 4, valibot, arktype) or a JSON Schema, compiled
// once into the JSON Schema a model is sent and a check that names every problem.
export { compileSchema, plainJsonSchema } from './compile.js';
export type { CompiledSchema, JsonSchema, SchemaCheck, SchemaLike } from './compile.js';
export { compileJsonSchema, jsonSchemaCodegen, validatorLoading } from './json-validator.js';
export { NATIVE_PATTERN_INPUT } from './patterns.js';
export type { JsonSchemaCheck } from './json-validator.js';
export { formatIssues, pointerOf } from './issues.js';
export type { SchemaIssue } from './issues.js';
export { isStandardSchema } from './standard.js';
export type { StandardJSONSchemaV1, StandardSchemaV1 } from './standard.js';
export { SchemaDefinitionError } from './errors.js';
