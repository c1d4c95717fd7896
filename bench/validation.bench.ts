// Tool input validation: what checking one call's input against its schema adds to the call, against
// calling `execute` directly with the same input, for a small and a large schema, as a JSON Schema
// (@cfworker/json-schema) and as a zod schema. Each figure is microseconds per call, median of samples
// of 20,000 calls, measured in this run.
import { z } from 'zod';
import { checkToolInput, compileToolInput } from '../src/tools/index.js';
import type { ToolDefinition } from '../src/entries/runtime.js';
import { fmt, median, now } from './stats.js';

const CALLS = 20_000;
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

async function measure(label: string, inputSchema: object, input: object): Promise<void> {
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
}

await measure('small JSON Schema (3 fields)', jsonOf(smallZod), smallInput);
await measure('small zod schema (3 fields)', smallZod, smallInput);
await measure('large JSON Schema (32 fields, 20 nested items)', jsonOf(largeZod), largeInput);
await measure('large zod schema (32 fields, 20 nested items)', largeZod, largeInput);
