// Sub-agents: what a call through agentTool costs beyond calling the same child agent directly, and
// what an idle sub-agent session keeps in memory. The model answers instantly in-process, the store
// is a MemorySessionStore, so the figures are the conductor's and agentTool's own work.
//   - overhead: a sub-agent call (its child session created, opened and probed, its first step, its
//     events forwarded into the calling run, the session let go) against the same child agent, already
//     built, asked directly in a new session (resume + submit). Target: under 1 ms per call.
//   - memory: heap kept per idle sub-agent session (its call done, its conductor closed; what is left is
//     the session's records in the store, anything agentTool keeps, and the forwarded events the calling
//     run's log keeps for its Run). Target: under 50 KB.
// Both time the compiled package (see built.ts), as users run it; the ratio is judged on CPU time
// (process.cpuUsage), which a loaded machine's preemption does not inflate.
import { loadavg } from 'node:os';
import type { MemorySessionStore, ModelInvoker, ToolContext } from '../src/runtime/index.js';
import { BUILT_NOTE, importBuilt } from './built.js';
import { fmt, median, now } from './stats.js';

const {
  createConductor,
  MemorySessionStore: Store,
  RunLedger,
} = await importBuilt<typeof import('../src/runtime/index.js')>('runtime/index.js');
const { AgentCaller } = await importBuilt<typeof import('../src/runtime/agent/caller.js')>('runtime/agent/caller.js');
const { RunScope } = await importBuilt<typeof import('../src/runtime/agent/run-scope.js')>('runtime/agent/run-scope.js');
const { agentTool } = await importBuilt<typeof import('../src/agents/index.js')>('agents/index.js');

const CALLS = 400;
const SAMPLES = 21;
const WARMUP = 6;
const IDLE_SESSIONS = 2_000;

const usage = { inputTokens: 12, outputTokens: 4, cacheWriteTokens: 0, cacheReadTokens: 0 };
const invokeModel: ModelInvoker = async () => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Found it.' }] },
  stopReason: 'end_turn',
  usage,
});
const child = { model: 'bench', system: 'You research.' };
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

// The CPU time (ms, every thread of the process) of the last `direct` or `throughTool`.
let lastCpu = 0;

/** The baseline: one child agent, built once, asked in a new session per call. */
async function direct(store: MemorySessionStore, round: number): Promise<number> {
  const agent = createConductor(child, { invokeModel, store });
  const c0 = process.cpuUsage();
  const t0 = now();
  for (let i = 0; i < CALLS; i++) {
    await agent.resume(`direct-${round}-${i}`);
    await agent.submit('Find the tide tables.');
  }
  const elapsed = now() - t0;
  const cpu = process.cpuUsage(c0);
  lastCpu = (cpu.user + cpu.system) / 1000;
  await agent.close();
  return elapsed;
}

/** The same through agentTool: each call builds, opens, runs, forwards and closes the sub-agent. */
async function throughTool(store: MemorySessionStore, round: number): Promise<number> {
  const tool = agentTool(child, { name: 'research', description: 'Researches.' });
  const scope = new RunScope(`run-${round}`, new RunLedger());
  const caller = new AgentCaller(`lead-${round}`, scope.runId, { invokeModel, store }, undefined, undefined, scope);
  const signal = new AbortController().signal;
  const c0 = process.cpuUsage();
  const t0 = now();
  for (let i = 0; i < CALLS; i++) {
    const ctx: ToolContext = { signal, callId: `c${i}`, caller };
    const result = (await tool.execute({ prompt: 'Find the tide tables.' }, ctx)) as { answer: string };
    if (result.answer !== 'Found it.') throw new Error(`unexpected answer ${JSON.stringify(result)}`);
  }
  const elapsed = now() - t0;
  const cpu = process.cpuUsage(c0);
  lastCpu = (cpu.user + cpu.system) / 1000;
  return elapsed;
}

async function overhead(): Promise<void> {
  for (let i = 0; i < WARMUP; i++) {
    await direct(new Store(), -i - 1);
    await throughTool(new Store(), -i - 1);
  }
  const directMs: number[] = [];
  const toolMs: number[] = [];
  const directCpu: number[] = [];
  const toolCpu: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    directMs.push(await direct(new Store(), i));
    directCpu.push(lastCpu);
    toolMs.push(await throughTool(new Store(), i));
    toolCpu.push(lastCpu);
  }
  const perDirect = (median(directMs) * 1000) / CALLS;
  const perTool = (median(toolMs) * 1000) / CALLS;
  const perDirectCpu = (median(directCpu) * 1000) / CALLS;
  const perToolCpu = (median(toolCpu) * 1000) / CALLS;
  const extra = perToolCpu - perDirectCpu;
  const ratio = perToolCpu / perDirectCpu;
  console.log(`sub-agent call: ${CALLS} calls, median of ${SAMPLES} (load average ${load()})`);
  console.log(`  ${BUILT_NOTE}`);
  console.log(`  directly (resume + submit)   ${fmt(perDirect)} us/call wall, ${fmt(perDirectCpu)} us/call CPU`);
  console.log(
    `  through agentTool            ${fmt(perTool)} us/call wall, ${fmt(perToolCpu)} us/call CPU, ratio ${(perTool / perDirect).toFixed(2)}x wall, ${ratio.toFixed(2)}x CPU  (target <= 1.2x CPU: ${ratio <= 1.2 ? 'met' : 'MISSED'})`,
  );
  console.log(`  overhead ${fmt(extra)} us/call CPU  (target < 1000 us: ${extra < 1000 ? 'met' : 'MISSED'})`);
}

function heapUsed(): number {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

async function memory(): Promise<void> {
  if (globalThis.gc === undefined) console.log('  (run with --expose-gc, as `npm run bench` does, for exact figures)');
  const store = new Store();
  const tool = agentTool(child, { name: 'research', description: 'Researches.' });
  const scope = new RunScope('run-memory', new RunLedger());
  const caller = new AgentCaller('lead', scope.runId, { invokeModel, store }, undefined, undefined, scope);
  const signal = new AbortController().signal;
  // Warm: everything allocated once per process (compiled schemas, code) is in the baseline.
  await tool.execute({ prompt: 'Warm up.' }, { signal, callId: 'warm', caller });
  const before = heapUsed();
  for (let i = 0; i < IDLE_SESSIONS; i++) await tool.execute({ prompt: 'Find the tide tables.' }, { signal, callId: `m${i}`, caller });
  const after = heapUsed();
  const perSession = (after - before) / IDLE_SESSIONS;
  const stored = store.sessionIds().length;
  if (stored < IDLE_SESSIONS) throw new Error(`expected ${IDLE_SESSIONS} sessions, the store holds ${stored}`);
  console.log(`idle sub-agent sessions: ${IDLE_SESSIONS} (load average ${load()})`);
  console.log(
    `  ${fmt(perSession / 1024)} KB of heap per idle session, its records in the store included  (target < 50 KB: ${perSession < 50 * 1024 ? 'met' : 'MISSED'})`,
  );
}

await overhead();
await memory();
