// Loop overhead: the same 1,000-step tool conversation through `createAgent` and through a bare loop that
// calls the same in-process model and tool directly. Also the ledger's fan-out rate to 3 subscribers
// against calling 3 handlers in a plain loop, and the cost of tracing: the same conversation with
// `indusagi/telemetry` recording every span and metric against without it. Targets: within 10x the
// bare loop; above 5 million events a second to 3 subscribers.
//
// The agent is the compiled package (see built.ts), the JavaScript users run, not tsx's transform of
// the sources: that transform wraps every closure the loop makes per step in a naming helper, which
// a build never does. Wall and CPU time (process.cpuUsage) are both reported: on a loaded machine a
// run of a few milliseconds is often preempted, which the wall clock counts and the CPU clock does not.
import { context, metrics, trace, SpanKind, type Meter, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { loadavg } from 'node:os';
import type { ModelInvoker, RunEvent, Turn } from '../src/entries/runtime.js';
import type { Telemetry } from '../src/telemetry/index.js';
import { BUILT_NOTE, importBuilt } from './built.js';
import { counterScript, counterTool, instantModel } from './counter-conversation.js';
import { fmt, median, now } from './stats.js';

const { createAgent } = await importBuilt<typeof import('../src/entries/runtime.js')>('entries/runtime.js');
const { createTelemetry } = await importBuilt<typeof import('../src/telemetry/index.js')>('telemetry/index.js');
const { RunLedger, SnapshotAccumulator } = await importBuilt<typeof import('../src/runtime/ledger/index.js')>('runtime/ledger/index.js');

const STEPS = 1_000;
const SAMPLES = 15;
// The conductor's code paths need a few thousand steps before the JIT has optimised them.
const WARMUP_RUNS = 20;

const tool = counterTool;
const script = () => counterScript(STEPS);

/** The baseline: the same calls with no conductor around them. */
async function bareLoop(invoke: ModelInvoker): Promise<number> {
  const signal = new AbortController().signal;
  const tools = [{ name: 'counter_bump', description: tool.description, inputSchema: tool.inputSchema }];
  const messages: Turn[] = [{ role: 'user', blocks: [{ kind: 'text', text: 'count' }] }];
  let steps = 0;
  for (;;) {
    const reply = await invoke({ model: 'bench', messages, tools, maxOutputTokens: 1024, signal });
    steps++;
    messages.push(reply.turn);
    const calls = reply.turn.blocks.filter((b) => b.kind === 'tool_call');
    if (calls.length === 0) return steps;
    const results = await Promise.all(
      calls.map(async (c) => ({
        kind: 'tool_result' as const,
        callId: c.id,
        content: JSON.stringify(await tool.execute(c.input, { signal, callId: c.id })),
      })),
    );
    messages.push({ role: 'user', blocks: results });
  }
}

async function throughAgent(invoke: ModelInvoker): Promise<number> {
  const agent = createAgent({ model: 'bench', tools: [tool], maxSteps: STEPS }, { invokeModel: invoke });
  const snapshot = await agent.submit('count');
  return (snapshot.messages.length - 1) / 2 + 0.5;
}

/** The same with a SnapshotAccumulator listening, so every step also builds a snapshot (a copy of the context). */
async function throughWatchedAgent(invoke: ModelInvoker): Promise<number> {
  const ledger = new RunLedger();
  new SnapshotAccumulator().attach(ledger);
  const agent = createAgent({ model: 'bench', tools: [tool], maxSteps: STEPS }, { invokeModel: invoke, ledger });
  const snapshot = await agent.submit('count');
  return (snapshot.messages.length - 1) / 2 + 0.5;
}

// The CPU time (ms, every thread of the process) the last `timeOnce` took.
let lastCpu = 0;

async function timeOnce(run: (invoke: ModelInvoker) => Promise<number>): Promise<number> {
  // No forced gc() here: a full collection shrinks the young generation, and the next run would pay for
  // regrowing it, which no long-lived agent process does.
  const replies = script();
  const c0 = process.cpuUsage();
  const t0 = now();
  const steps = await run(instantModel(replies));
  const elapsed = now() - t0;
  const cpu = process.cpuUsage(c0);
  lastCpu = (cpu.user + cpu.system) / 1000;
  if (Math.round(steps) !== STEPS) throw new Error(`expected ${STEPS} steps, got ${steps}`);
  return elapsed;
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function loopOverhead(): Promise<void> {
  // The plain agent alternates only with the bare loop; the watched agent (whose snapshots grow the heap
  // by a context copy a step) gets its own phase, so its garbage is not collected on the others' time.
  for (let i = 0; i < WARMUP_RUNS; i++) {
    await timeOnce(bareLoop);
    await timeOnce(throughAgent);
  }
  const bare: number[] = [];
  const agent: number[] = [];
  const bareCpu: number[] = [];
  const agentCpu: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    bare.push(await timeOnce(bareLoop));
    bareCpu.push(lastCpu);
    agent.push(await timeOnce(throughAgent));
    agentCpu.push(lastCpu);
  }
  const watched: number[] = [];
  for (let i = 0; i < WARMUP_RUNS; i++) await timeOnce(throughWatchedAgent);
  for (let i = 0; i < SAMPLES; i++) watched.push(await timeOnce(throughWatchedAgent));
  const bareMs = median(bare);
  const agentMs = median(agent);
  const watchedMs = median(watched);
  const perStepUs = ((agentMs - bareMs) * 1000) / STEPS;
  const cpuRatio = median(agentCpu) / median(bareCpu);
  console.log(`loop: ${STEPS}-step tool conversation, median of ${SAMPLES} (load average ${load()})`);
  console.log(`  ${BUILT_NOTE}`);
  console.log(`  bare loop  ${fmt(bareMs)} ms  (${fmt((bareMs * 1000) / STEPS)} us/step; CPU ${fmt(median(bareCpu))} ms)`);
  console.log(`  createAgent ${fmt(agentMs)} ms  (${fmt((agentMs * 1000) / STEPS)} us/step; CPU ${fmt(median(agentCpu))} ms)`);
  console.log(
    `  overhead ${fmt(perStepUs)} us/step, ratio ${(agentMs / bareMs).toFixed(2)}x, CPU time ${cpuRatio.toFixed(2)}x  (target <= 10x the bare loop, CPU time: ${cpuRatio <= 10 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `  with a SnapshotAccumulator subscribed: ${fmt(watchedMs)} ms, overhead ${fmt(((watchedMs - bareMs) * 1000) / STEPS)} us/step (a snapshot per step copies the context)`,
  );
}

function ledgerFanOut(): void {
  const EVENTS = 2_000_000;
  const event: RunEvent = { kind: 'text_delta', delta: 'x', runId: 'bench' };
  let seen = 0;
  const handlers = [() => seen++, () => seen++, () => seen++];

  const raw = (): number => {
    const t0 = now();
    for (let i = 0; i < EVENTS; i++) for (let h = 0; h < handlers.length; h++) handlers[h]();
    return now() - t0;
  };
  const ledger = new RunLedger();
  for (const handler of handlers) ledger.subscribe(handler);
  const published = (): number => {
    const t0 = now();
    for (let i = 0; i < EVENTS; i++) ledger.publish(event);
    return now() - t0;
  };
  for (let i = 0; i < 3; i++) {
    raw();
    published();
  }
  const rawMs = median(Array.from({ length: SAMPLES }, raw));
  const ledgerMs = median(Array.from({ length: SAMPLES }, published));
  const rate = EVENTS / (ledgerMs / 1000);
  console.log(`ledger: ${EVENTS} events to 3 subscribers, median of ${SAMPLES}`);
  console.log(
    `  ${fmt(rate / 1e6)} M events/s vs raw ${fmt(EVENTS / (rawMs / 1000) / 1e6)} M/s = ${(ledgerMs / rawMs).toFixed(2)}x the raw time  (target > 5 M/s: ${rate > 5e6 ? 'met' : 'MISSED'})`,
  );
  if (seen === 0) throw new Error('handlers never ran');
}

/** The same agent with telemetry recording: every span ends in a real SDK and is exported (nowhere). */
async function throughTracedAgent(invoke: ModelInvoker, telemetry: Telemetry): Promise<number> {
  const agent = createAgent({ model: 'bench', tools: [tool], maxSteps: STEPS }, { invokeModel: invoke, telemetry });
  const snapshot = await agent.submit('count');
  return (snapshot.messages.length - 1) / 2 + 0.5;
}

class Discarding implements SpanExporter {
  exported = 0;
  export(spans: Parameters<SpanExporter['export']>[0], done: Parameters<SpanExporter['export']>[1]): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  async shutdown(): Promise<void> {}
}

class OnDemandReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/**
 * Tracing on against off. Measured last: the context manager's AsyncLocalStorage, once in use, hooks
 * every promise of the process, so every side here runs with it, as it would in an application with
 * an OpenTelemetry SDK registered. The figures above ran before it existed. Three ways on: the API's
 * no-op tracer and meter (what the instrumentation itself costs: no SDK, or a span not sampled;
 * target <= 1.5x), and a real SDK exporting to a no-op exporter through a BatchSpanProcessor (what
 * NodeSDK uses) and through a SimpleSpanProcessor. Last, the SDK alone: the same two spans and four
 * histogram records a step costs, with no agent, the floor under the SDK figures.
 */
async function tracingOverhead(): Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const meter = new MeterProvider({ readers: [new OnDemandReader()] }).getMeter('bench');
  const exporter = new Discarding();
  const batch = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter)] }).getTracer('bench');
  const simple = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
  const sides: Array<{ label: string; run: (invoke: ModelInvoker) => Promise<number>; ms: number[] }> = [
    { label: 'off', run: throughAgent, ms: [] },
    { label: 'on, no SDK (no-op tracer and meter)', run: tracedWith(trace.getTracer('none'), metrics.getMeter('none')), ms: [] },
    { label: 'on, SDK, BatchSpanProcessor, no-op exporter', run: tracedWith(batch, meter), ms: [] },
    { label: 'on, SDK, SimpleSpanProcessor, no-op exporter', run: tracedWith(simple, meter), ms: [] },
  ];
  for (let i = 0; i < WARMUP_RUNS; i++) for (const side of sides) await timeOnce(side.run);
  for (let i = 0; i < SAMPLES; i++) for (const side of sides) side.ms.push(await timeOnce(side.run));
  const offMs = median(sides[0].ms);
  console.log(
    `telemetry: the same ${STEPS}-step conversation, tracing on vs off, median of ${SAMPLES} (context manager registered for all)`,
  );
  console.log(`  off ${fmt(offMs)} ms  (${fmt((offMs * 1000) / STEPS)} us/step)`);
  for (const side of sides.slice(1)) {
    const onMs = median(side.ms);
    const target = side === sides[1] ? `  (target <= 1.5x: ${onMs / offMs <= 1.5 ? 'met' : 'MISSED'})` : '';
    console.log(
      `  ${side.label}: ${fmt(onMs)} ms, ${(onMs / offMs).toFixed(2)}x off, +${fmt(((onMs - offMs) * 1000) / STEPS)} us/step${target}`,
    );
  }
  for (const [label, tracer] of [
    ['BatchSpanProcessor', batch],
    ['SimpleSpanProcessor', simple],
  ] as const) {
    console.log(
      `  the SDK alone, ${label}: ${fmt(sdkFloorUs(tracer, meter))} us/step for a chat and an execute_tool span and four histogram records`,
    );
  }
}

function tracedWith(tracer: Tracer, meter: Meter): (invoke: ModelInvoker) => Promise<number> {
  const telemetry = createTelemetry({ tracer, meter });
  return (invoke) => throughTracedAgent(invoke, telemetry);
}

/** Microseconds a step's spans and records cost the SDK by themselves, attributes as the agent sets them. */
function sdkFloorUs(tracer: Tracer, meter: Meter): number {
  const duration = meter.createHistogram('floor.duration');
  const tokens = meter.createHistogram('floor.tokens');
  const parent = trace.setSpan(context.active(), tracer.startSpan('floor'));
  const call = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'bench', 'gen_ai.response.model': 'bench' };
  const input = { ...call, 'gen_ai.token.type': 'input' };
  const output = { ...call, 'gen_ai.token.type': 'output' };
  const tool = { 'gen_ai.tool.name': 'counter_bump', 'gen_ai.tool.type': 'function' };
  const step = () => {
    const chat = tracer.startSpan(
      'chat bench',
      { kind: SpanKind.CLIENT, attributes: { ...call, 'gen_ai.request.max_tokens': 100 } },
      parent,
    );
    chat.setAttributes({
      'gen_ai.response.finish_reasons': ['tool_use'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.usage.output_tokens': 3,
    });
    chat.end();
    duration.record(0.001, call);
    tokens.record(10, input);
    tokens.record(3, output);
    const run = tracer.startSpan('execute_tool counter_bump', { attributes: { ...tool, 'gen_ai.tool.call.id': 'c' } }, parent);
    run.end();
    duration.record(0.001, tool);
  };
  for (let i = 0; i < STEPS * WARMUP_RUNS; i++) step();
  const samples = Array.from({ length: SAMPLES }, () => {
    const t0 = now();
    for (let i = 0; i < STEPS; i++) step();
    return ((now() - t0) * 1000) / STEPS;
  });
  return median(samples);
}

await loopOverhead();
ledgerFanOut();
await tracingOverhead();
