// Opening a conversation from an agent definition against building the conductor whole, as every
// server run, sub-agent call and evaluation case did before definitions: `createConductor(config, deps)`
// (define + open) against `definition.open()` of a definition made once. The agent has twelve tools
// with realistic input schemas (each compiled with its validator when the agent is defined), history
// recall over a MemorySessionStore, and a condensation policy. Each sample opens (and closes) OPENS
// conversations; the figures are the median per open, and the heap each kept open conversation holds.
// Target: opening <= 10% of building.
import { loadavg } from 'node:os';
import { createConductor, defineConductor, MemorySessionStore } from '../src/runtime/index.js';
import type { Agent, ModelInvoker, ToolDefinition } from '../src/runtime/index.js';
import { fmt, median, now } from './stats.js';

const OPENS = 500;
const SAMPLES = 9;
const KEPT = 1_000;

const invokeModel: ModelInvoker = async () => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'ok' }] },
  stopReason: 'end_turn',
  usage: { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 },
});

/** The agent's tools, made afresh as a per-run factory makes them (the server's built-in agent did, every run). */
const makeTools = (): ToolDefinition[] =>
  Array.from({ length: 12 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i}: does one thing to a record.`,
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', pattern: '^[a-z0-9-]{1,64}$' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        filters: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, equals: { type: 'string' } } } },
        mode: { enum: ['fast', 'careful'] },
      },
      required: ['id'],
      additionalProperties: false,
    },
    execute: () => 'done',
  }));
const configOf = () => ({ model: 'bench', system: 'You help.', tools: makeTools(), compaction: { keepRecent: 8 } });
const config = configOf();
const store = new MemorySessionStore();
const deps = { invokeModel, store };
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function timed(open: (i: number) => Agent): Promise<number> {
  const t0 = now();
  for (let i = 0; i < OPENS; i++) await open(i).close();
  return ((now() - t0) * 1000) / OPENS;
}

function heapPerKept(open: (i: number) => Agent): number {
  globalThis.gc?.();
  const before = process.memoryUsage().heapUsed;
  const kept: Agent[] = [];
  for (let i = 0; i < KEPT; i++) kept.push(open(i));
  globalThis.gc?.();
  const after = process.memoryUsage().heapUsed;
  if (kept.length !== KEPT) throw new Error('unreachable');
  return (after - before) / KEPT;
}

const definition = defineConductor(config, deps);
const build = (i: number) => createConductor({ ...configOf(), sessionId: `b-${i}` }, deps);
const open = (i: number) => definition.open({ sessionId: `o-${i}` });

for (let i = 0; i < 3; i++) {
  await timed(build);
  await timed(open);
}
const built: number[] = [];
const opened: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  built.push(await timed(build));
  opened.push(await timed(open));
}
const perBuild = median(built);
const perOpen = median(opened);
console.log(`agent open: ${OPENS} conversations per sample, median of ${SAMPLES} (load average ${load()})`);
console.log(`  createConductor (define + open)  ${fmt(perBuild)} us/conversation`);
console.log(`  definition.open()                ${fmt(perOpen)} us/conversation`);
const ratio = perOpen / perBuild;
console.log(`  open / build ${(ratio * 100).toFixed(1)}%  (target <= 10%: ${ratio <= 0.1 ? 'met' : 'MISSED'})`);
const heapBuild = heapPerKept(build);
const heapOpen = heapPerKept(open);
console.log(`  heap per open conversation: built ${fmt(heapBuild / 1024)} KB, opened ${fmt(heapOpen / 1024)} KB`);
