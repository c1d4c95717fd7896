// Loop overhead: the same 1,000-step tool conversation through `createAgent` and through a bare loop that
// calls the same in-process model and tool directly. Also the ledger's fan-out rate to 3 subscribers
// against calling 3 handlers in a plain loop, and the cost of tracing: the same conversation with
// `indusagi/telemetry` recording every span and metric against without it. Targets: under 50 us of
// overhead per step; above 5 million events a second to 3 subscribers.
import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { createAgent } from '../src/entries/runtime.js';
import { createTelemetry, type Telemetry } from '../src/telemetry/index.js';
import { RunLedger, SnapshotAccumulator } from '../src/runtime/ledger/index.js';
import type { ModelInvoker, RunEvent, Turn } from '../src/entries/runtime.js';
import { counterScript, counterTool, instantModel } from './counter-conversation.js';
import { fmt, median, now } from './stats.js';

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

async function timeOnce(run: (invoke: ModelInvoker) => Promise<number>): Promise<number> {
  // No forced gc() here: a full collection shrinks the young generation, and the next run would pay for
  // regrowing it, which no long-lived agent process does.
  const replies = script();
  const t0 = now();
  const steps = await run(instantModel(replies));
  const elapsed = now() - t0;
  if (Math.round(steps) !== STEPS) throw new Error(`expected ${STEPS} steps, got ${steps}`);
  return elapsed;
}

async function loopOverhead(): Promise<void> {
  for (let i = 0; i < WARMUP_RUNS; i++) {
    await timeOnce(bareLoop);
    await timeOnce(throughAgent);
    await timeOnce(throughWatchedAgent);
  }
  const bare: number[] = [];
  const agent: number[] = [];
  const watched: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    bare.push(await timeOnce(bareLoop));
    agent.push(await timeOnce(throughAgent));
    watched.push(await timeOnce(throughWatchedAgent));
  }
  const bareMs = median(bare);
  const agentMs = median(agent);
  const watchedMs = median(watched);
  const perStepUs = ((agentMs - bareMs) * 1000) / STEPS;
  console.log(`loop: ${STEPS}-step tool conversation, median of ${SAMPLES}`);
  console.log(`  bare loop  ${fmt(bareMs)} ms  (${fmt((bareMs * 1000) / STEPS)} us/step)`);
  console.log(`  createAgent ${fmt(agentMs)} ms  (${fmt((agentMs * 1000) / STEPS)} us/step)`);
  console.log(
    `  overhead ${fmt(perStepUs)} us/step, ratio ${(agentMs / bareMs).toFixed(2)}x  (target < 50 us/step: ${perStepUs < 50 ? 'met' : 'MISSED'})`,
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
 * every promise of the process, so both sides here run with it, as they would in an application with
 * an OpenTelemetry SDK registered. The figures above ran before it existed.
 */
async function tracingOverhead(): Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new Discarding();
  const tracer: Tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer('bench');
  const meter = new MeterProvider({ readers: [new OnDemandReader()] }).getMeter('bench');
  const telemetry = createTelemetry({ tracer, meter });
  const traced = (invoke: ModelInvoker) => throughTracedAgent(invoke, telemetry);
  for (let i = 0; i < WARMUP_RUNS; i++) {
    await timeOnce(throughAgent);
    await timeOnce(traced);
  }
  const plain: number[] = [];
  const tracedMs: number[] = [];
  const before = exporter.exported;
  for (let i = 0; i < SAMPLES; i++) {
    plain.push(await timeOnce(throughAgent));
    tracedMs.push(await timeOnce(traced));
  }
  const spansPerRun = (exporter.exported - before) / SAMPLES;
  const plainMs = median(plain);
  const onMs = median(tracedMs);
  console.log(
    `telemetry: the same ${STEPS}-step conversation, tracing on vs off, median of ${SAMPLES} (context manager registered for both)`,
  );
  console.log(`  off ${fmt(plainMs)} ms  (${fmt((plainMs * 1000) / STEPS)} us/step)`);
  console.log(`  on  ${fmt(onMs)} ms  (${fmt((onMs * 1000) / STEPS)} us/step), ${fmt(spansPerRun)} spans a run`);
  console.log(
    `  ratio ${(onMs / plainMs).toFixed(2)}x, ${fmt(((onMs - plainMs) * 1000) / STEPS)} us/step for a chat and an execute_tool span and their metrics`,
  );
}

await loopOverhead();
ledgerFanOut();
await tracingOverhead();
