import { Validator, type OutputUnit, type Schema, type SchemaDraft, type ValidationResult } from '@cfworker/json-schema';
import { SchemaDefinitionError } from './errors.js';
import type { SchemaIssue } from './issues.js';
import type { FastCheck } from './codegen-validator.js';
import { assertPatternsBounded, withBoundedPatterns } from './patterns.js';

/** A compiled JSON Schema: the issues of a value, empty when it matches. */
export type JsonSchemaCheck = (value: unknown) => SchemaIssue[];

// Ajv is loaded on the first compile rather than at import: tens of milliseconds that a process which
// never validates a JSON Schema should not pay. Until it has loaded, and wherever code generation is
// refused, the interpreter validates alone: as correct, slower.
let codegen: typeof import('./codegen-validator.js') | null | undefined;
let loading: Promise<void> | undefined;

function loadCodegen(): Promise<void> {
  loading ??= import('./codegen-validator.js').then(
    (module) => {
      codegen = module;
    },
    () => {
      // Only speed is lost: the interpreter is the whole validator.
      codegen = null;
    },
  );
  return loading;
}

/**
 * The load of the compiled validator while it is in flight; undefined before any JSON Schema was
 * compiled and once it has settled. A caller about to check a value can wait for it once, so that a
 * program whose every await resolves at once (an in-process model) still gets the fast validator
 * from its first check: the import needs the event loop, which such a program would never give it.
 */
export function validatorLoading(): Promise<void> | undefined {
  return codegen === undefined ? loading : undefined;
}

/**
 * Resolves once the JSON Schema validator is settled: true when schemas compile to JavaScript (Ajv),
 * false where code generation is refused and @cfworker/json-schema interprets them.
 */
export async function jsonSchemaCodegen(): Promise<boolean> {
  await loadCodegen();
  return codegen != null && codegen.compileFast({ type: 'object' }, '2020-12') !== null;
}

/**
 * Compiles a JSON Schema once, for two validators that read it alike: Ajv, which generates a
 * JavaScript function (where `new Function` is allowed), answers whether a value matches, and
 * @cfworker/json-schema (no code generation, drafts 4, 7, 2019-09 and 2020-12) says what is wrong when
 * it does not, and validates alone where code cannot be generated. The dialect is read from `$schema`;
 * without one it is 2020-12, what zod and the Messages API speak. Each validator gets its own copy,
 * because they annotate the schema objects they are given and a caller's may be frozen or shared.
 * Every `pattern` is checked in bounded time (see patterns.ts); one that cannot be is refused here.
 */
export function compileJsonSchema(schema: object, what: string): JsonSchemaCheck {
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch (cause) {
    throw new SchemaDefinitionError(what, 'the JSON Schema cannot be serialized as JSON', { cause });
  }
  const copy = JSON.parse(text) as Schema;
  assertPatternsBounded(copy, what);
  const draft = draftOf(copy.$schema);
  let validator: Validator;
  try {
    validator = new Validator(copy, draft, false);
  } catch (cause) {
    throw new SchemaDefinitionError(
      what,
      `the JSON Schema cannot be compiled (${cause instanceof Error ? cause.message : String(cause)})`,
      { cause },
    );
  }
  const unusable = unusableKeyword(copy);
  if (unusable !== undefined) throw new SchemaDefinitionError(what, unusable);
  void loadCodegen();
  // undefined until Ajv has loaded and compiled it; null where it cannot.
  let fast: FastCheck | null | undefined;
  const interpret = (value: unknown): ValidationResult => withBoundedPatterns(() => validator.validate(value));
  return (value) => {
    if (!isJsonValue(value))
      return [{ path: '', message: `${value === undefined ? 'No value was given' : `A ${typeof value} is not a JSON value`}.` }];
    if (fast === undefined && codegen !== undefined)
      fast = codegen === null ? null : codegen.compileFast(JSON.parse(text) as object, draft);
    if (fast != null && fast(value)) return [];
    let result: ValidationResult;
    try {
      result = interpret(value);
    } catch {
      // The validator throws on what JSON has no form for (an `undefined` field from code, not from a
      // model); such a value is checked as the JSON it would travel as.
      result = interpret(JSON.parse(JSON.stringify(value)));
    }
    return result.valid ? [] : issuesOf(result.errors);
  };
}

/**
 * What the validator would only find when a value reaches it, so that a call fails instead of the
 * definition: a `pattern` (or `patternProperties` key) that is not a regular expression, and a `$ref`
 * to a place in the schema that does not exist. Refs are checked only in a schema with no nested `$id`,
 * where a `#/...` pointer is read from the root; remote and anchor refs are left to the validator.
 */
function unusableKeyword(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const refs: string[] = [];
  let nestedId = false;
  const walk = (node: unknown, root: boolean): string | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const found = walk(item, false);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (typeof node !== 'object' || node === null) return undefined;
    const record = node as Record<string, unknown>;
    if (!root && typeof record.$id === 'string') nestedId = true;
    if (typeof record.$ref === 'string') refs.push(record.$ref);
    const patterns = typeof record.pattern === 'string' ? [record.pattern] : [];
    if (typeof record.patternProperties === 'object' && record.patternProperties !== null)
      patterns.push(...Object.keys(record.patternProperties));
    for (const pattern of patterns) {
      try {
        new RegExp(pattern, 'u');
      } catch (cause) {
        return `the pattern ${JSON.stringify(pattern)} is not a regular expression (${(cause as Error).message})`;
      }
    }
    for (const [key, child] of Object.entries(record)) {
      // `const`, `enum`, `default` and `examples` hold values, not schemas.
      if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
      const found = walk(child, false);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const found = walk(schema, true);
  if (found !== undefined || nestedId) return found;
  for (const ref of refs) {
    if (ref !== '#' && ref.startsWith('#/') && !resolves(schema, ref.slice(2)))
      return `the $ref ${JSON.stringify(ref)} points to nothing in the schema`;
  }
  return undefined;
}

function resolves(root: unknown, pointer: string): boolean {
  let node = root;
  for (const raw of pointer.split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

// The top level only; anything nested that JSON cannot hold is dealt with as JSON would.
function isJsonValue(value: unknown): boolean {
  return (
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'object'
  );
}

function draftOf(dialect: unknown): SchemaDraft {
  if (typeof dialect !== 'string') return '2020-12';
  if (dialect.includes('draft-04')) return '4';
  if (dialect.includes('draft-06') || dialect.includes('draft-07')) return '7';
  if (dialect.includes('2019-09')) return '2019-09';
  return '2020-12';
}

// Keywords whose error only says that something below them failed; the failure below says what.
const SUMMARY_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'dependentSchemas',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  '$ref',
  '$recursiveRef',
  '$dynamicRef',
  'allOf',
  'if',
  'then',
  'else',
]);
// Keywords whose branches all failed: their own error is the useful one, the branches' are noise.
const ALTERNATIVE_KEYWORDS = new Set(['anyOf', 'oneOf', 'not']);

/**
 * The validator's output units as issues: only the failures that say what is wrong, each once. Units
 * that summarise a failure below them are dropped, as are the branch failures under an `anyOf`/`oneOf`,
 * and a `false` schema (a property or item the schema does not allow) reads as such.
 */
function issuesOf(units: readonly OutputUnit[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  const alternatives: string[] = [];
  let parent: OutputUnit | undefined;
  for (const unit of units) {
    const previous = parent;
    parent = unit;
    if (alternatives.some((location) => unit.keywordLocation.startsWith(`${location}/`))) continue;
    if (ALTERNATIVE_KEYWORDS.has(unit.keyword)) alternatives.push(unit.keywordLocation);
    else if (SUMMARY_KEYWORDS.has(unit.keyword)) continue;
    const message = unit.keyword === 'false' ? notAllowed(previous) : unit.error;
    const path = unit.instanceLocation.replace(/^#/, '');
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
  }
  return issues;
}

function notAllowed(parent: OutputUnit | undefined): string {
  if (parent?.keyword === 'additionalProperties' || parent?.keyword === 'unevaluatedProperties')
    return 'Unexpected property: the schema allows no property of this name.';
  if (parent?.keyword === 'items' || parent?.keyword === 'additionalItems' || parent?.keyword === 'unevaluatedItems')
    return 'Unexpected item: the schema allows no item here.';
  return 'No value is allowed here.';
}
