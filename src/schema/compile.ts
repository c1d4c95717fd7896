import { SchemaDefinitionError } from './errors.js';
import { pointerOf, type SchemaIssue } from './issues.js';
import { compileJsonSchema } from './json-validator.js';
import { hasJsonSchemaConverter, isStandardSchema, type StandardResult, type StandardSchemaV1 } from './standard.js';

/** A JSON Schema object, as the model is sent it. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** What a schema said of a value: the value to use (a Standard Schema's output, with its defaults and transforms) or the issues. */
export type SchemaCheck<T = unknown> = { ok: true; value: T } | { ok: false; issues: SchemaIssue[] };

/** A schema ready for use: the JSON Schema to send, and a check of values against the schema itself. */
export type CompiledSchema = {
  readonly jsonSchema: JsonSchema;
  /** Synchronous for a JSON Schema and for most Standard Schemas; a promise when the library validates asynchronously. */
  check(value: unknown): SchemaCheck | Promise<SchemaCheck>;
};

/** The forms a schema may take: a Standard Schema (zod 4, valibot, arktype…) or a JSON Schema object. */
export type SchemaLike = StandardSchemaV1 | JsonSchema;

// Keyed by the schema object (then by the JSON Schema given beside a Standard one), so a schema shared
// by many tools or agents compiles once.
const compiled = new WeakMap<object, CompiledSchema>();
const compiledWith = new WeakMap<object, WeakMap<object, CompiledSchema>>();

/**
 * Compiles `schema` once. A JSON Schema is validated with @cfworker/json-schema. A Standard Schema
 * validates itself, and its JSON Schema comes from the Standard JSON Schema extension
 * (`~standard.jsonSchema.input`, draft 2020-12: zod 4.2+, arktype 2.1.28+, valibot through
 * `toStandardJsonSchema`), or from `jsonSchema` when given, which wins. Throws `SchemaDefinitionError`
 * (naming `what`) when no JSON Schema can be had: never an empty schema that lets anything through.
 */
export function compileSchema(schema: unknown, what: string, jsonSchema?: object): CompiledSchema {
  if ((typeof schema !== 'object' && typeof schema !== 'function') || schema === null || Array.isArray(schema)) {
    throw new SchemaDefinitionError(what, `expected a Standard Schema or a JSON Schema object, got ${describe(schema)}`);
  }
  if (jsonSchema !== undefined && (typeof jsonSchema !== 'object' || jsonSchema === null || Array.isArray(jsonSchema))) {
    throw new SchemaDefinitionError(what, `the JSON Schema given beside it must be an object, got ${describe(jsonSchema)}`);
  }
  if (jsonSchema === undefined) {
    let made = compiled.get(schema);
    if (made === undefined) {
      made = isStandardSchema(schema) ? compileStandard(schema, what, undefined) : compileJson(schema as JsonSchema, what);
      compiled.set(schema, made);
    }
    return made;
  }
  if (!isStandardSchema(schema)) throw new SchemaDefinitionError(what, 'a JSON Schema beside it only goes with a Standard Schema');
  let byJson = compiledWith.get(schema);
  if (byJson === undefined) compiledWith.set(schema, (byJson = new WeakMap()));
  let made = byJson.get(jsonSchema);
  if (made === undefined) byJson.set(jsonSchema, (made = compileStandard(schema, what, jsonSchema)));
  return made;
}

const plainCopies = new WeakMap<object, JsonSchema>();

/**
 * `schema` as a JSON Schema and nothing more: a copy (made once per object) without the Standard
 * Schema that some libraries attach to the JSON Schemas they emit (zod does), so it only validates and
 * hands back the value unchanged. For schemas whose executor checks input again with its own schema
 * (a `Toolset`'s): checking twice with transforms would transform twice.
 */
export function plainJsonSchema(schema: object): JsonSchema {
  let plain = plainCopies.get(schema);
  if (plain === undefined) plainCopies.set(schema, (plain = JSON.parse(JSON.stringify(schema)) as JsonSchema));
  return plain;
}

function compileJson(schema: JsonSchema, what: string): CompiledSchema {
  if (typeof schema === 'function')
    throw new SchemaDefinitionError(what, 'a function is not a JSON Schema, and it is not a Standard Schema (no `~standard.validate`)');
  const validate = compileJsonSchema(schema, what);
  return {
    jsonSchema: schema,
    check(value) {
      const issues = validate(value);
      return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
    },
  };
}

function compileStandard(schema: StandardSchemaV1, what: string, given: object | undefined): CompiledSchema {
  const props = schema['~standard'];
  // The given JSON Schema is what the model sees; the Standard Schema still decides what is valid.
  const jsonSchema = (given as JsonSchema | undefined) ?? deriveJsonSchema(schema, what);
  return {
    jsonSchema,
    check(value) {
      const result = props.validate(value);
      return result instanceof Promise ? result.then(toCheck) : toCheck(result);
    },
  };
}

function deriveJsonSchema(schema: StandardSchemaV1, what: string): JsonSchema {
  const vendor = schema['~standard'].vendor;
  if (!hasJsonSchemaConverter(schema)) {
    throw new SchemaDefinitionError(
      what,
      `this ${vendor} schema cannot produce a JSON Schema for the model (it does not implement the Standard JSON Schema extension). ` +
        'Use zod 4.2+, arktype 2.1.28+ or valibot with toStandardJsonSchema() from @valibot/to-json-schema, or give the JSON Schema beside it.',
    );
  }
  let derived: unknown;
  try {
    derived = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
  } catch (cause) {
    throw new SchemaDefinitionError(
      what,
      `${vendor} could not express this schema as JSON Schema (${cause instanceof Error ? cause.message : String(cause)}); give the JSON Schema beside it`,
      { cause },
    );
  }
  if (typeof derived !== 'object' || derived === null || Array.isArray(derived)) {
    throw new SchemaDefinitionError(what, `${vendor} produced ${describe(derived)} instead of a JSON Schema object`);
  }
  return derived as JsonSchema;
}

function toCheck<T>(result: StandardResult<T>): SchemaCheck<T> {
  if (!result.issues) return { ok: true, value: result.value };
  return {
    ok: false,
    issues: result.issues.map((issue) => ({
      path: pointerOf((issue.path ?? []).map((segment) => (typeof segment === 'object' && segment !== null ? segment.key : segment))),
      message: issue.message,
    })),
  };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : typeof value;
}
