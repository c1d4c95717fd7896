// Telemetry over MCP tools: the execute_tool span of an MCP tool's call names its server, and its
// trace context reaches the server in the request's `_meta` (the hostile fixture's `meta` tool says
// what it got), so the server's own spans can join the agent's trace.
import { propagation, trace, type Context, type TextMapPropagator, type TextMapSetter } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpClient } from '../../src/mcp/index.js';
import { createConductor, type ModelInvoker, type RunEvent } from '../../src/runtime/index.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtel, type Otel } from '../telemetry/otel-sdk.js';
import { hostile } from './reference-servers.js';

// W3C Trace Context, inject only: what a registered propagator (the Node SDK's default) writes.
const w3c: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter) {
    const span = trace.getSpanContext(context);
    if (span === undefined) return;
    setter.set(carrier, 'traceparent', `00-${span.traceId}-${span.spanId}-0${span.traceFlags.toString(16)}`);
  },
  extract: (context) => context,
  fields: () => ['traceparent'],
};

let otel: Otel;
let client: McpClient;
beforeAll(async () => {
  otel = startOtel();
  propagation.setGlobalPropagator(w3c);
  client = await connectMcp('hostile', { ...hostile(), needsApproval: false });
});
afterAll(async () => {
  await client.close();
  propagation.disable();
  await otel.shutdown();
});

describe('an MCP tool call under telemetry', () => {
  it('names its server on the execute_tool span and sends the span’s trace context in _meta', async () => {
    let step = 0;
    const invokeModel: ModelInvoker = async () =>
      ++step === 1
        ? {
            turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'm1', name: 'hostile_meta', input: {} }] },
            stopReason: 'tool_use',
          }
        : { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'done' }] }, stopReason: 'end_turn' };
    const agent = createConductor(
      { model: 'test', tools: [...client.tools()] },
      { invokeModel, telemetry: createTelemetry({ tracer: otel.tracer }) },
    );
    const events: RunEvent[] = [];
    agent.subscribe((event) => events.push(event));
    await agent.submit('What meta do you get?');

    const span = otel.spans().find((s) => s.name === 'execute_tool hostile.meta')!;
    expect(span.attributes).toMatchObject({
      'gen_ai.tool.name': 'hostile.meta',
      'indusagi.mcp.server': 'hostile',
      'mcp.method.name': 'tools/call',
    });
    const finished = events.find((e): e is Extract<RunEvent, { kind: 'tool_finished' }> => e.kind === 'tool_finished')!;
    const { traceId, spanId } = span.spanContext();
    // Beside the progress token the call asks progress with.
    expect(JSON.parse(finished.result as string)).toEqual({ traceparent: `00-${traceId}-${spanId}-01`, progressToken: expect.any(Number) });
  });
});
