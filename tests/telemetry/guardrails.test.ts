// Guardrails in traces: each check is a span under its run, and a trip marks the run's span, which ends
// with error.type guardrail_tripped.
import { SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConductor } from '../../src/runtime/agent/index.js';
import { denyToolArguments } from '../../src/runtime/guardrails/index.js';
import type { ModelInvoker, ToolDefinition } from '../../src/index.js';
import type { ModelReply } from '../../src/runtime/contract/index.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { startOtel, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());

const usage = { inputTokens: 10, outputTokens: 3, cacheWriteTokens: 0, cacheReadTokens: 0 };
function scripted(replies: ModelReply[]): ModelInvoker {
  return Object.assign(async () => replies.shift() ?? Promise.reject(new Error('no reply scripted')), { provider: 'test-provider' });
}
const callShell = (command: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'c1', name: 'shell', input: { command } }] },
  stopReason: 'tool_use',
  usage,
});
const answer: ModelReply = { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'done' }] }, stopReason: 'end_turn', usage };
const shell: ToolDefinition = { name: 'shell', description: 'Runs.', inputSchema: { type: 'object' }, execute: () => 'ran' };

const named = (name: string) => otel.spans().filter((span) => span.name === name);
const parentOf = (name: string) => named(name)[0].parentSpanContext?.spanId;

describe('guardrail spans', () => {
  it('trace each check under its run, and a trip on the run span, which fails with guardrail_tripped', async () => {
    const agent = createConductor(
      {
        model: 'm',
        tools: [shell],
        inputGuardrails: [{ name: 'polite', execute: async () => ({ tripwireTriggered: false }) }],
        outputGuardrails: [denyToolArguments([{ match: 'rm -rf' }], { name: 'deny' })],
      },
      { invokeModel: scripted([callShell('rm -rf /'), answer]), telemetry: createTelemetry({ captureContent: true }) },
    );

    await expect(agent.submit('clean up')).rejects.toMatchObject({ kind: 'guardrail_tripped' });

    const [run] = named('invoke_agent');
    expect(run.attributes).toMatchObject({
      'error.type': 'guardrail_tripped',
      'indusagi.guardrail.name': 'deny',
      'indusagi.guardrail.stage': 'tool_call',
    });
    expect(run.status.code).toBe(SpanStatusCode.ERROR);
    expect(run.events.find((event) => event.name === 'indusagi.guardrail_tripped')?.attributes).toEqual({
      'indusagi.guardrail.name': 'deny',
      'indusagi.guardrail.stage': 'tool_call',
      'indusagi.guardrail.message': 'Argument "command" of shell matches the deny-list entry "rm -rf"',
      'gen_ai.tool.name': 'shell',
      'gen_ai.tool.call.id': 'c1',
    });
    const [polite] = named('indusagi.guardrail polite');
    expect(polite.attributes).toMatchObject({ 'indusagi.guardrail.stage': 'input', 'indusagi.guardrail.triggered': false });
    const [deny] = named('indusagi.guardrail deny');
    expect(deny.attributes).toMatchObject({
      'indusagi.guardrail.stage': 'tool_call',
      'indusagi.guardrail.triggered': true,
      'gen_ai.tool.name': 'shell',
      'gen_ai.tool.call.id': 'c1',
    });
    expect([parentOf('indusagi.guardrail polite'), parentOf('indusagi.guardrail deny')]).toEqual([
      run.spanContext().spanId,
      run.spanContext().spanId,
    ]);
    // The call never ran: its span says so.
    expect(named('execute_tool shell')[0].attributes['error.type']).toBe('tool_not_run');
  });

  it('fail the span of a guardrail that throws, and keep the trip message out of traces without captureContent', async () => {
    const agent = createConductor(
      {
        model: 'm',
        outputGuardrails: [
          {
            name: 'moderation',
            execute: () => {
              throw new TypeError('moderation API unreachable');
            },
          },
        ],
      },
      { invokeModel: scripted([answer]), telemetry: createTelemetry() },
    );

    await expect(agent.submit('hello')).rejects.toMatchObject({ kind: 'guardrail_tripped' });

    const [moderation] = named('indusagi.guardrail moderation');
    expect(moderation.attributes).toMatchObject({ 'indusagi.guardrail.stage': 'answer', 'error.type': 'TypeError' });
    // Without captureContent a failed span says what failed by its class only (issue 27 item 8).
    expect(moderation.status).toEqual({ code: SpanStatusCode.ERROR, message: 'TypeError' });
    const [run] = named('invoke_agent');
    expect(run.events.find((event) => event.name === 'indusagi.guardrail_tripped')?.attributes).toEqual({
      'indusagi.guardrail.name': 'moderation',
      'indusagi.guardrail.stage': 'answer',
    });
  });
});
