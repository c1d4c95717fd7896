// The two JSON Schema validators behind compileSchema: Ajv's generated code where `new Function` is
// allowed, @cfworker/json-schema's interpreter where it is not, saying the same of every value; and
// `pattern` checked in bounded time on both, so a schema's regular expression cannot freeze the process.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  compileJsonSchema,
  compileSchema,
  jsonSchemaCodegen,
  NATIVE_PATTERN_INPUT,
  SchemaDefinitionError,
} from '../../src/schema/index.js';
import type { SchemaIssue } from '../../src/schema/index.js';
import { Validator } from '@cfworker/json-schema';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'check-values.ts');

/** Checks `values` against `schema` in a fresh process; killed when the test ends, whatever happened. */
async function checkInChild(schema: object, values: unknown[], nodeFlags: string[] = []) {
  const stop = new AbortController();
  try {
    return await new Promise<{ codegen: boolean; issues: SchemaIssue[][] }>((resolve, reject) => {
      const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', fixture, JSON.stringify({ schema, values })], {
        signal: stop.signal,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.stderr.on('data', (chunk) => (stderr += chunk));
      child.on('error', (error) => (error.name === 'AbortError' ? undefined : reject(error)));
      child.on('close', (code) => (code === 0 ? resolve(JSON.parse(stdout)) : reject(new Error(`child exited ${code}: ${stderr}`))));
    });
  } finally {
    stop.abort();
  }
}

const order = {
  type: 'object',
  properties: {
    customer: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    address: {
      type: 'object',
      properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['zip'],
      additionalProperties: false,
    },
    lines: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } }, required: ['sku', 'qty'] },
      uniqueItems: true,
    },
    priority: { anyOf: [{ type: 'integer' }, { enum: ['low', 'high'] }] },
  },
  required: ['customer'],
  additionalProperties: false,
};
const values = [
  { customer: 'Acme', email: 'a@b.co', address: { zip: '75001' }, lines: [{ sku: 'a', qty: 2 }], priority: 'high' },
  { customer: 'Acme', priority: 3 },
  { customer: '', email: 'not an email', address: { zip: 5, street: 'x' }, lines: [{ sku: 'a', qty: 0 }, { qty: 1 }], priority: 'urgent' },
  {
    customer: 'Acme',
    lines: [
      { sku: 'a', qty: 1 },
      { sku: 'a', qty: 1 },
    ],
  },
  { customer: 'Acme', address: { zip: '7500' } },
  [],
  'text',
  null,
];

describe('JSON Schema validation', () => {
  it('compiles to JavaScript where code generation is allowed and says of every value what the interpreter says', async () => {
    expect(await jsonSchemaCodegen()).toBe(true);
    const check = compileJsonSchema(order, 'order');
    const compiled = values.map((value) => check(value));
    expect(compiled[0]).toEqual([]);
    expect(compiled[1]).toEqual([]);
    expect(compiled[2]).toContainEqual({ path: '/address/zip', message: 'Instance type "number" is invalid. Expected "string".' });
    expect(compiled[4]).toEqual([{ path: '/address/zip', message: 'String does not match pattern.' }]);

    const interpreted = await checkInChild(order, values, ['--disallow-code-generation-from-strings']);
    expect(interpreted.codegen).toBe(false);
    expect(interpreted.issues).toEqual(compiled);
  });

  it('never lets through a value the interpreter refuses: random values against keywords of every kind', async () => {
    expect(await jsonSchemaCodegen()).toBe(true);
    const schemas: object[] = [
      order,
      {
        type: 'object',
        properties: {
          n: { type: 'number', multipleOf: 0.5, exclusiveMinimum: -3, maximum: 7 },
          s: { type: 'string', minLength: 2, maxLength: 4, format: 'date' },
          u: { type: 'string', format: 'uuid' },
          a: {
            type: 'array',
            prefixItems: [{ type: 'integer' }],
            items: { type: 'string' },
            minItems: 1,
            maxItems: 3,
            contains: { const: 'x' },
          },
          o: { type: 'object', propertyNames: { pattern: '^[a-z]+$' }, minProperties: 1, dependentRequired: { a: ['b'] } },
          e: { oneOf: [{ type: 'integer' }, { type: 'number', minimum: 2 }] },
          c: { if: { type: 'string' }, then: { enum: ['yes', 'no'] }, else: { type: 'boolean' } },
          r: { $ref: '#/$defs/node' },
        },
        $defs: { node: { type: 'object', properties: { next: { $ref: '#/$defs/node' } }, unevaluatedProperties: false } },
        patternProperties: { '^x-': { type: 'string' } },
        additionalProperties: { not: { type: 'null' } },
      },
    ];
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const pick = <T>(list: T[]): T => list[Math.floor(random() * list.length)];
    const leaf = () =>
      pick<unknown>([
        0,
        1,
        2.5,
        -4,
        7.5,
        8,
        '',
        'x',
        'ab',
        'yes',
        '2026-02-30',
        '2026-03-14',
        'c0ffee00-0000-4000-8000-000000000000',
        true,
        false,
        null,
      ]);
    const value = (depth: number): unknown => {
      if (depth > 2 || random() < 0.4) return leaf();
      if (random() < 0.4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const keys = ['n', 's', 'u', 'a', 'o', 'e', 'c', 'r', 'next', 'b', 'x-y', 'Z', 'customer', 'address', 'zip', 'lines', 'priority'];
      return Object.fromEntries(Array.from({ length: Math.floor(random() * 5) }, () => [pick(keys), value(depth + 1)]));
    };
    const verdicts = { valid: 0, refused: 0 };
    for (const schema of schemas) {
      const compiled = compileJsonSchema(schema, 'test');
      const interpreter = new Validator(JSON.parse(JSON.stringify(schema)), '2020-12', false);
      for (let i = 0; i < 3_000; i++) {
        const candidate = value(0);
        const valid = interpreter.validate(candidate).valid;
        expect(compiled(candidate).length === 0, JSON.stringify(candidate)).toBe(valid);
        verdicts[valid ? 'valid' : 'refused']++;
      }
    }
    // Both kinds of value were tried.
    expect(verdicts.valid).toBeGreaterThan(50);
    expect(verdicts.refused).toBeGreaterThan(50);
  });

  it("checks a catastrophic pattern ('^(a+)+$') in linear time, in-process and without code generation", async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } };
    // A backtracking engine takes 2^n steps on this: at n = 26 it blocked the event loop 8.2 s, at 60 it never ends.
    const hostile = [{ name: `${'a'.repeat(60)}!` }, { name: 'a'.repeat(60) }, { name: `${'a'.repeat(50_000)}!` }];
    const expected = [
      [{ path: '/name', message: 'String does not match pattern.' }],
      [],
      [{ path: '/name', message: 'String does not match pattern.' }],
    ];
    for (const flags of [[], ['--disallow-code-generation-from-strings']]) {
      const { issues } = await checkInChild(schema, hostile, flags);
      expect(issues).toEqual(expected);
    }
    const check = compileJsonSchema(schema, 'test');
    expect(hostile.map((value) => check(value))).toEqual(expected);
  });

  it('sends strings past the native limit to the linear-time engine, with the same answer', () => {
    const check = compileJsonSchema({ type: 'object', properties: { id: { type: 'string', pattern: '^[a-z]+$' } } }, 'test');
    const long = 'a'.repeat(NATIVE_PATTERN_INPUT * 5);
    expect(check({ id: long })).toEqual([]);
    expect(check({ id: `${long}1` })).toEqual([{ path: '/id', message: 'String does not match pattern.' }]);
    expect(check({ id: 'short' })).toEqual([]);
  });

  it('refuses, where the schema is defined, a pattern that may backtrack and that the linear-time engine cannot run', () => {
    for (const pattern of ['^(?=a)(a+)+$', '^(\\w+)\\1(x|xy)*$']) {
      const schema = { type: 'object', patternProperties: { [pattern]: { type: 'string' } } };
      expect(() => compileSchema({ type: 'object', properties: { p: { type: 'string', pattern } } }, 'tool "t" inputSchema')).toThrow(
        SchemaDefinitionError,
      );
      expect(() => compileSchema(schema, 'tool "t" inputSchema')).toThrow(/may take exponential time/);
    }
    // Lookaround that cannot backtrack badly is fine, with the JS engine.
    const check = compileJsonSchema({ type: 'string', pattern: '^(?!admin$)[a-z]+$' }, 'test');
    expect(check('admin')).toEqual([{ path: '', message: 'String does not match pattern.' }]);
    expect(check('alice')).toEqual([]);
  });
});
