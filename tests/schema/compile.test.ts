// compileSchema over real schema libraries: the JSON Schema a model is sent, and the issues (JSON Pointer
// path and message) a value that does not match gets, for JSON Schemas and Standard Schemas alike.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as v from 'valibot';
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import { compileSchema, formatIssues, SchemaDefinitionError, type SchemaCheck } from '../../src/schema/index.js';

const order = {
  type: 'object',
  properties: {
    customer: { type: 'string', minLength: 1 },
    address: {
      type: 'object',
      properties: { zip: { type: 'string', pattern: '^[0-9]{5}$' } },
      required: ['zip'],
      additionalProperties: false,
    },
    lines: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer', minimum: 1 } }, required: ['sku', 'qty'] },
    },
    priority: { anyOf: [{ type: 'integer' }, { enum: ['low', 'high'] }] },
  },
  required: ['customer'],
  additionalProperties: false,
};

const check = (schema: object, value: unknown, jsonSchema?: object) =>
  compileSchema(schema, 'test', jsonSchema).check(value) as SchemaCheck;
const paths = (result: SchemaCheck) => (result.ok ? [] : result.issues.map((issue) => issue.path));

describe('a JSON Schema', () => {
  it('accepts a matching value as it is, and is sent as it was given', () => {
    const value = { customer: 'Acme', address: { zip: '75001' }, lines: [{ sku: 'a', qty: 2 }], priority: 'high' };
    expect(check(order, value)).toEqual({ ok: true, value });
    expect(compileSchema(order, 'test').jsonSchema).toBe(order);
  });

  it('names every problem once, at its own path, nested objects and array items included', () => {
    const result = check(order, {
      town: 42,
      address: { zip: 5, street: 'x' },
      lines: [{ sku: 'a', qty: 0 }, { qty: 1 }],
      priority: 'urgent',
    });
    expect(result.ok).toBe(false);
    expect(paths(result).sort()).toEqual(['', '/address/street', '/address/zip', '/lines/0/qty', '/lines/1', '/priority', '/town'].sort());
    const text = formatIssues(result.ok ? [] : result.issues);
    expect(text).toContain('- (the whole value): Instance does not have required property "customer".');
    expect(text).toContain('- /town: Unexpected property: the schema allows no property of this name.');
    expect(text).toContain('- /address/zip: Instance type "number" is invalid. Expected "string".');
    expect(text).toContain('- /lines/0/qty: 0 is less than 1.');
    expect(text).toContain('- /lines/1: Instance does not have required property "sku".');
    // A union failure is reported once, not once per branch that failed.
    expect(text).toContain('- /priority: Instance does not match any subschemas.');
  });

  it('escapes keys as JSON Pointer does, and reads draft-07 definitions', () => {
    const draft7 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { n: { type: 'number' } },
      properties: { 'a/b': { $ref: '#/definitions/n' }, 'c~d': { type: 'number' } },
    };
    expect(paths(check(draft7, { 'a/b': 'x', 'c~d': 'y' }))).toEqual(['/a~1b', '/c~0d']);
  });

  it('reports a value JSON cannot hold as an issue instead of throwing', () => {
    expect(check(order, undefined)).toEqual({ ok: false, issues: [{ path: '', message: 'No value was given.' }] });
  });

  it('compiles once per schema object, and never touches the caller’s (possibly frozen) schema', () => {
    const frozen = Object.freeze({
      type: 'object',
      properties: { a: Object.freeze({ $ref: '#/$defs/x' }) },
      $defs: Object.freeze({ x: Object.freeze({ type: 'string' }) }),
    });
    const first = compileSchema(frozen, 'test');
    expect(compileSchema(frozen, 'test')).toBe(first);
    expect(paths(first.check({ a: 1 }) as SchemaCheck)).toEqual(['/a']);
    expect(JSON.stringify(frozen)).toBe('{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}');
  });

  it('refuses what is not a schema, naming it', () => {
    for (const bad of [null, 'object', 3, [], undefined]) {
      expect(() => compileSchema(bad, 'tool "x" inputSchema')).toThrow(SchemaDefinitionError);
    }
    expect(() => compileSchema('object', 'tool "x" inputSchema')).toThrow(
      /^tool "x" inputSchema: expected a Standard Schema or a JSON Schema object, got the string "object"$/,
    );
    expect(() => compileSchema(() => 1, 'tool "x" inputSchema')).toThrow(/not a Standard Schema/);
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.self = cyclic;
    expect(() => compileSchema(cyclic, 'cyclic')).toThrow(/cannot be serialized as JSON/);
  });

  it('refuses, where it is defined, a pattern or a $ref the validator would only trip over when a value reaches it', () => {
    const pattern = { type: 'object', properties: { id: { type: 'string', pattern: '([a-z]' } } };
    expect(() => compileSchema(pattern, 'tool "x" inputSchema')).toThrow(
      'tool "x" inputSchema: the pattern "([a-z]" is not a regular expression (Invalid regular expression: /([a-z]/u: Unterminated group)',
    );
    const keys = { type: 'object', patternProperties: { '*': { type: 'string' } } };
    expect(() => compileSchema(keys, 'keys')).toThrow(/^keys: the pattern "\*" is not a regular expression/);
    const ref = { type: 'object', properties: { a: { $ref: '#/$defs/missing' } }, $defs: { there: { type: 'string' } } };
    expect(() => compileSchema(ref, 'ref')).toThrow('ref: the $ref "#/$defs/missing" points to nothing in the schema');
    // Values are not schemas: a `const` or `default` that looks like a bad schema is left alone.
    const values = {
      type: 'object',
      properties: { a: { const: { pattern: '(' } }, b: { $ref: '#/$defs/there' } },
      $defs: { there: { type: 'string' } },
    };
    expect(compileSchema(values, 'values').check({ a: { pattern: '(' }, b: 'ok' })).toEqual({
      ok: true,
      value: { a: { pattern: '(' }, b: 'ok' },
    });
  });
});

describe('a Standard Schema', () => {
  const zodOrder = z.object({
    customer: z.string().min(1),
    address: z.object({ zip: z.string().regex(/^[0-9]{5}$/) }).optional(),
    qty: z.number().int().default(1),
    when: z.string().transform((text) => new Date(text)),
  });

  it('zod: the JSON Schema comes from the schema, and a valid value comes back as its output (defaults, transforms)', () => {
    const compiled = compileSchema(zodOrder, 'test');
    expect(compiled.jsonSchema).toMatchObject({
      type: 'object',
      required: ['customer', 'when'],
      properties: { customer: { type: 'string', minLength: 1 } },
    });
    const result = compiled.check({ customer: 'Acme', when: '2026-01-02T00:00:00Z' }) as SchemaCheck<{ qty: number; when: Date }>;
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.value.qty).toBe(1);
      expect(result.value.when).toBeInstanceOf(Date);
    }
  });

  it('zod: every issue with its path, nested ones included', () => {
    const result = check(zodOrder, { customer: '', address: { zip: 75001 }, when: 3 });
    expect(result).toMatchObject({
      ok: false,
      issues: [
        { path: '/customer', message: expect.stringMatching(/>=1 characters/) },
        { path: '/address/zip', message: expect.stringMatching(/expected string, received number/) },
        { path: '/when', message: expect.stringMatching(/expected string, received number/) },
      ],
    });
  });

  it('valibot through toStandardJsonSchema, and arktype: JSON Schema derived, object path segments read', () => {
    const valibot = toStandardJsonSchema(v.object({ city: v.string(), stops: v.array(v.object({ at: v.number() })) }));
    expect(compileSchema(valibot, 'test').jsonSchema).toMatchObject({ type: 'object', required: ['city', 'stops'] });
    expect(paths(check(valibot, { city: 'Pune', stops: [{ at: 'noon' }] }))).toEqual(['/stops/0/at']);
    const ark = type({ city: 'string', 'count?': 'number' });
    expect(compileSchema(ark, 'test').jsonSchema).toMatchObject({ type: 'object', required: ['city'] });
    expect(check(ark, { city: 3 })).toMatchObject({
      ok: false,
      issues: [{ path: '/city', message: expect.stringMatching(/must be a string/) }],
    });
  });

  it('a library that cannot produce a JSON Schema is refused at once, never sent as an empty schema', () => {
    const plainValibot = v.object({ city: v.string() });
    expect(() => compileSchema(plainValibot, 'tool "trip" inputSchema')).toThrow(SchemaDefinitionError);
    expect(() => compileSchema(plainValibot, 'tool "trip" inputSchema')).toThrow(
      /this valibot schema cannot produce a JSON Schema for the model/,
    );
    expect(() => compileSchema(z.object({ on: z.date() }), 'tool "cal" inputSchema')).toThrow(
      /^tool "cal" inputSchema: zod could not express this schema as JSON Schema \(Date cannot be represented/,
    );
  });

  it('with a JSON Schema given beside it, the model is sent that one and the Standard Schema still decides', () => {
    const plainValibot = v.object({ city: v.string() });
    const given = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const compiled = compileSchema(plainValibot, 'test', given);
    expect(compiled.jsonSchema).toBe(given);
    expect(compileSchema(plainValibot, 'test', given)).toBe(compiled);
    expect(paths(compiled.check({ city: 1 }) as SchemaCheck)).toEqual(['/city']);
    expect(() => compileSchema(given, 'test', given)).toThrow(/only goes with a Standard Schema/);
  });

  it('validates asynchronously when the library does', async () => {
    const slow = z
      .object({ name: z.string() })
      .refine(async (value) => value.name !== 'taken', { message: 'That name is taken.', path: ['name'] });
    const compiled = compileSchema(slow, 'test');
    const pending = compiled.check({ name: 'taken' });
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toEqual({ ok: false, issues: [{ path: '/name', message: 'That name is taken.' }] });
  });
});
