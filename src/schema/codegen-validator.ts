import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { format, type SchemaDraft } from '@cfworker/json-schema';
import { patternTester } from './patterns.js';

/** A schema compiled to JavaScript: whether a value matches, nothing more (the interpreter says why not). */
export type FastCheck = (value: unknown) => boolean;

// Ajv's pattern hook: the same bounded testers the interpreter uses.
const regExp = Object.assign((pattern: string) => patternTester(pattern), { code: 'indusagi/schema/patterns' });

const options: Options = {
  // The interpreter's reading of a schema, so both say the same of a value: unknown keywords and
  // formats are ignored, nothing is coerced or defaulted, lengths count code points.
  strict: false,
  validateSchema: false,
  addUsedSchema: false,
  allErrors: false,
  logger: false,
  unicodeRegExp: true,
  code: { regExp },
};

function withFormats<T extends Ajv>(ajv: T): T {
  // @cfworker/json-schema's own format checks, so a `format` means the same on both paths.
  for (const [name, check] of Object.entries(format)) ajv.addFormat(name, check);
  return ajv;
}

// One instance per draft: an instance costs milliseconds to make, a compile far less.
const engines = new Map<SchemaDraft, Ajv | null>();

function engineFor(draft: SchemaDraft): Ajv | null {
  let engine = engines.get(draft);
  if (engine === undefined) {
    // Draft 4 has no Ajv dialect here; its schemas stay with the interpreter.
    engine =
      draft === '4'
        ? null
        : withFormats(draft === '2020-12' ? new Ajv2020(options) : draft === '2019-09' ? new Ajv2019(options) : new Ajv(options));
    engines.set(draft, engine);
  }
  return engine;
}

/**
 * `schema` compiled by Ajv to a JavaScript function, or null where that cannot be had: code generation
 * refused (`new Function` under a CSP, `--disallow-code-generation-from-strings`), draft 4, or a schema
 * Ajv will not compile (an unresolved `$ref`). Then the interpreter alone validates, as correct, slower.
 */
export function compileFast(schema: object, draft: SchemaDraft): FastCheck | null {
  const engine = engineFor(draft);
  if (engine === null) return null;
  let validate: ValidateFunction;
  try {
    validate = engine.compile(schema);
  } catch {
    // EvalError under a CSP, or a schema only the interpreter reads: both leave the interpreter to do it all.
    return null;
  } finally {
    // Ajv keeps every compiled schema in a Map of its own; ours is a WeakMap per schema object.
    engine.removeSchema(schema);
  }
  return (value) => validate(value) as boolean;
}
