// Telemetry over a tree of agents: each sub-agent's run is an `invoke_agent` span under the
// `execute_tool` span of the call that runs it, with the real OpenTelemetry SDK in memory.
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import type { ToolDefinition } from '../../src/entries/runtime.js';
import { agentTool } from '../../src/agents/index.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtel, type Otel } from '../telemetry/otel-sdk.js';
import { startTreeModel, systemOf, type TreeModel } from './tree-model.js';

let otel: Otel;
let model: TreeModel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());
afterEach(() => model.close());

const MODEL = 'claude-haiku-4-5';
const look: ToolDefinition = { name: 'look', description: 'Looks.', inputSchema: { type: 'object' }, execute: () => 'seen' };

const parentOf = (span: ReadableSpan) => otel.spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
const one = (name: string) => {
  const found = otel.spans().filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0];
};

describe('telemetry over a tree of agents', () => {
  it("nests each sub-agent's invoke_agent span under the execute_tool span of its call, in one trace", async () => {
    model = await startTreeModel({
      lead: () => [{ name: 'research', input: { prompt: 'go' } }],
      research: () => [{ name: 'web', input: { prompt: 'go' } }],
      web: () => [{ name: 'look', input: {} }],
    });
    const web = agentTool({ model: MODEL, system: systemOf('web'), tools: [look] }, { name: 'web', description: 'W.' });
    const research = agentTool({ model: MODEL, system: systemOf('research'), tools: [web] }, { name: 'research', description: 'R.' });
    const lead = createAgent(
      { name: 'lead', model: MODEL, system: systemOf('lead'), tools: [research] },
      { client: model.server.client(), store: new MemorySessionStore(), telemetry: createTelemetry() },
    );
    const done = await lead.submit('Go');
    expect(done.status).toBe('settled');

    const top = one('invoke_agent lead');
    const researchCall = one('execute_tool research');
    const researchRun = one('invoke_agent research');
    const webCall = one('execute_tool web');
    const webRun = one('invoke_agent web');
    const lookCall = one('execute_tool look');
    expect(parentOf(researchCall)).toBe(top);
    expect(parentOf(researchRun)).toBe(researchCall);
    expect(parentOf(webCall)).toBe(researchRun);
    expect(parentOf(webRun)).toBe(webCall);
    expect(parentOf(lookCall)).toBe(webRun);
    const traces = new Set(otel.spans().map((s) => s.spanContext().traceId));
    expect(traces.size).toBe(1);
    // Each sub-agent's run names its own session.
    expect(researchRun.attributes['gen_ai.conversation.id']).toBe(`${done.sessionId}.${researchCall.attributes['gen_ai.tool.call.id']}`);
    expect(researchRun.attributes['gen_ai.agent.name']).toBe('research');
    await lead.close();
  });
});
