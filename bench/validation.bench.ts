// Tool input validation: what checking one call's input against its schema adds to the call, against
// calling `execute` directly with the same input, for a small and a large schema, as a JSON Schema
// and as a zod schema. A JSON Schema is compiled to JavaScript by Ajv where code generation is allowed;
// the same JSON Schemas are then measured again in a child process started with
// --disallow-code-generation-from-strings, where @cfworker/json-schema interprets them (the fallback, as
// under a CSP). Each figure is microseconds per call, median of samples of 20,000 calls (2,000 interpreted),
// measured in this run. Target for the large JSON Schema with code generation: <= 20 us per call.
import { z } from 'zod';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkToolInput, compileToolInput } from '../src/tools/index.js';
import { jsonSchemaCodegen } from '../src/schema/index.js';
import type { ToolDefinition } from '../src/entries/runtime.js';
import { fmt, median, now } from './stats.js';

// The interpreter is about ten times slower: fewer calls per sample keep the whole bench within minutes.
const CALLS = process.argv.includes('--interpreted') ? 2_000 : 20_000;
const SAMPLES = 15;

const execute = (input: { city?: string }) => input.city?.length ?? 0;

// Small: the shape of most tools, three fields.
const smallZod = z.object({ city: z.string(), days: z.number().int().min(1).max(14), units: z.enum(['metric', 'imperial']) });
const smallInput = { city: 'Pune', days: 3, units: 'metric' };

// Large: 30 fields, a nested object and an array of 20 nested items.
const lineItem = z.object({
  sku: z.string().regex(/^[A-Z]{3}-[0-9]{4}$/),
  qty: z.number().int().min(1),
  price: z.number().min(0),
  note: z.string().optional(),
});
const largeZod = z.object({
  ...Object.fromEntries(
    Array.from({ length: 30 }, (_, i) => [`field${i}`, i % 3 === 0 ? z.string().min(1) : i % 3 === 1 ? z.number() : z.boolean()]),
  ),
  city: z.string(),
  address: z.object({ street: z.string(), zip: z.string().regex(/^[0-9]{5}$/), country: z.enum(['IN', 'FR', 'US']) }),
  lines: z.array(lineItem).max(100),
});
const largeInput = {
  ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`field${i}`, i % 3 === 0 ? `value ${i}` : i % 3 === 1 ? i : true])),
  city: 'Pune',
  address: { street: '1 Main St', zip: '41100', country: 'IN' },
  lines: Array.from({ length: 20 }, (_, i) => ({
    sku: `ABC-${String(1000 + i)}`,
    qty: i + 1,
    price: 9.5,
    ...(i % 2 ? { note: 'gift' } : {}),
  })),
};
// The same shapes as plain JSON Schemas (what zod derives, without zod attached).
const jsonOf = (schema: z.ZodType) => JSON.parse(JSON.stringify(z.toJSONSchema(schema))) as object;

async function perCall(run: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let s = 0; s < SAMPLES; s++) {
    const t0 = now();
    for (let i = 0; i < CALLS; i++) await run();
    samples.push(((now() - t0) * 1000) / CALLS);
  }
  return median(samples);
}

async function measure(label: string, inputSchema: object, input: object): Promise<number> {
  const definition: ToolDefinition = { name: `bench.${label}`, description: label, inputSchema, execute };
  const ctx = { signal: new AbortController().signal, callId: 'c' };
  const compiled = compileToolInput(definition);
  const checkThenRun = async () => {
    const checked = await checkToolInput(definition.name, compiled, input);
    if (!checked.ok) throw checked.error;
    return definition.execute(checked.input, ctx);
  };
  const direct = async () => definition.execute(input, ctx);
  if (!(await checkThenRun())) throw new Error(`${label}: the bench input does not validate`);
  await perCall(checkThenRun); // warm-up
  await perCall(direct);
  const checked = await perCall(checkThenRun);
  const raw = await perCall(direct);
  console.log(
    `${label}: check + execute ${fmt(checked)} us/call vs execute alone ${fmt(raw)} us/call = ${(checked / raw).toFixed(2)}x, overhead ${fmt(checked - raw)} us/call`,
  );
  return checked - raw;
}

// The child measures the JSON Schemas only, with the interpreter (fewer calls per sample).
const interpretedOnly = process.argv.includes('--interpreted');
const codegen = await jsonSchemaCodegen();
console.log(`JSON Schema validator: ${codegen ? 'compiled to JavaScript (Ajv)' : 'interpreted (@cfworker/json-schema)'}`);
await measure('small JSON Schema (3 fields)', jsonOf(smallZod), smallInput);
if (!interpretedOnly) await measure('small zod schema (3 fields)', smallZod, smallInput);
const large = await measure('large JSON Schema (32 fields, 20 nested items)', jsonOf(largeZod), largeInput);
if (!interpretedOnly) {
  await measure('large zod schema (32 fields, 20 nested items)', largeZod, largeInput);
  console.log(`large JSON Schema overhead: ${fmt(large)} us/call (target <= 20 us: ${large <= 20 ? 'met' : 'MISSED'})`);
  console.log('\nwithout code generation (--disallow-code-generation-from-strings, as under a CSP):');
  const child = spawnSync(
    process.execPath,
    ['--disallow-code-generation-from-strings', '--import', 'tsx', fileURLToPath(import.meta.url), '--interpreted'],
    { stdio: 'inherit' },
  );
  if (child.status !== 0) throw new Error(`the interpreted run failed (exit ${child.status})`);
}
