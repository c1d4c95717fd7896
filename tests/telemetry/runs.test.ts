// Traced runs beyond the happy path: failures and their error.type, approvals across two runs, runs
// queued on one agent (each span finds its own run), opt-in content, the metrics, and bad options.
import { SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, ToolError } from '../../src/index.js';
import { createConductor } from '../../src/runtime/agent/index.js';
import type { ModelInvoker, ToolDefinition, Turn } from '../../src/index.js';
import type { ModelReply, ModelRequest } from '../../src/runtime/contract/index.js';
import { createTelemetry, TelemetryOptionsError } from '../../src/telemetry/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { startOtel, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());

const usage = { inputTokens: 10, outputTokens: 3, cacheWriteTokens: 2, cacheReadTokens: 5 };
const text = (t: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: t }] },
  stopReason: 'end_turn',
  usage,
  id: `r_${t}`,
  model: 'm-2026',
});
const calls = (...list: Array<[string, string, unknown]>): ModelReply => ({
  turn: { role: 'assistant', blocks: list.map(([id, name, input]) => ({ kind: 'tool_call' as const, id, name, input })) },
  stopReason: 'tool_use',
  usage,
});

/** A model answering from a list, tagged with a provider as a real invoker is. */
function scripted(replies: ModelReply[], seen: ModelRequest[] = []): ModelInvoker {
  return Object.assign(
    async (request: ModelRequest) => {
      seen.push(request);
      const next = replies.shift();
      if (next === undefined) throw new Error('no reply scripted');
      return next;
    },
    { provider: 'test-provider' },
  );
}

const named = (name: string) => otel.spans().filter((span) => span.name === name);
const childrenOf = (parent: ReadableSpan) => otel.spans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);

describe('failures', () => {
  it('give a tool span the error.type of what the tool threw, and the run goes on', async () => {
    const tools: ToolDefinition[] = [
      {
        name: 'strict',
        description: 'Refuses.',
        inputSchema: { type: 'object' },
        execute: () => Promise.reject(new ToolError('not today')),
      },
      { name: 'buggy', description: 'Breaks.', inputSchema: { type: 'object' }, execute: () => (null as unknown as { x: number }).x },
    ];
    const agent = createConductor(
      { model: 'm', tools },
      { invokeModel: scripted([calls(['c1', 'strict', {}], ['c2', 'buggy', {}]), text('done')]), telemetry: createTelemetry() },
    );
    const errors = console.error;
    console.error = () => {}; // the loop reports the buggy tool's TypeError on the console
    try {
      expect((await agent.submit('go')).status).toBe('settled');
    } finally {
      console.error = errors;
    }
    const [strict] = named('execute_tool strict');
    expect(strict.attributes['error.type']).toBe('ToolError');
    // Without content capture the status names the error's class and kind, not the tool's words.
    expect(strict.status).toEqual({ code: SpanStatusCode.ERROR, message: 'ToolError (tool_error)' });
    const [buggy] = named('execute_tool buggy');
    expect(buggy.attributes['error.type']).toBe('TypeError');
    expect(buggy.status.code).toBe(SpanStatusCode.ERROR);
    expect(named('invoke_agent')[0].status.code).toBe(SpanStatusCode.UNSET);
  });

  describe('through the real SDK', () => {
    let server: AnthropicTestServer;
    beforeEach(async () => void (server = await startAnthropicServer()));
    afterEach(() => server.close());

    it('mark a refused model call with its HTTP status and the run with its fault kind, in spans and metrics', async () => {
      server.enqueue(reply.httpError(400, { message: 'bad request' }));
      const agent = createAgent({ model: 'claude-test' }, { client: server.client(), telemetry: createTelemetry() });

      await expect(agent.submit('hi')).rejects.toMatchObject({ kind: 'model_error' });

      const [chat] = named('chat claude-test');
      expect(chat.attributes).toMatchObject({ 'error.type': '400', 'gen_ai.provider.name': 'anthropic' });
      expect(chat.status.code).toBe(SpanStatusCode.ERROR);
      expect(chat.status.message).toMatch(/\(model_error\)$/);
      expect(chat.status.message).not.toContain('bad request');
      const [run] = named('invoke_agent');
      expect(run.attributes).toMatchObject({ 'error.type': 'model_error', 'indusagi.run.status': 'faulted' });
      expect(run.status.code).toBe(SpanStatusCode.ERROR);
      const durations = await otel.histogram('gen_ai.client.operation.duration');
      expect(durations.find((point) => point.attributes['error.type'] === '400')).toMatchObject({ count: 1 });
      const agents = await otel.histogram('gen_ai.invoke_agent.duration');
      expect(agents.find((point) => point.attributes['error.type'] === 'model_error')).toMatchObject({ count: 1 });
    });

    it('fail the condensation span with its summarizer call when the summary cannot be written', async () => {
      server.enqueue(reply.httpError(500, { headers: { 'x-should-retry': 'false' } }));
      const history: Turn[] = Array.from({ length: 12 }, (_, i) => ({
        role: i % 2 === 0 ? 'user' : 'assistant',
        blocks: [{ kind: 'text', text: `turn ${i} `.repeat(120) }],
      }));
      const agent = createAgent(
        { model: 'claude-test', compaction: { keepRecent: 2 } },
        { client: server.client(), messages: history, telemetry: createTelemetry() },
      );

      await expect(agent.condense()).rejects.toMatchObject({ kind: 'summarizer_failed' });

      const [run] = named('invoke_agent');
      expect(run.attributes).toMatchObject({ 'indusagi.run.operation': 'condense', 'error.type': 'summarizer_failed' });
      const [condense] = childrenOf(run).filter((span) => span.name === 'indusagi.condense');
      expect(condense.attributes['error.type']).toBe('500');
      expect(condense.status.code).toBe(SpanStatusCode.ERROR);
      const [summarizer] = childrenOf(condense);
      expect(summarizer.attributes).toMatchObject({ 'indusagi.model_call.purpose': 'summary', 'error.type': '500' });
    });
  });
});

describe('retries', () => {
  it('the invoker reports are events on the chat span, each with its attempt, wait, reason and status', async () => {
    const retrying: ModelInvoker = Object.assign(
      async (request: ModelRequest) => {
        request.onRetry?.({ attempt: 2, delayMs: 20, status: 429, reason: 'rate_limit_error' });
        request.onRetry?.({ attempt: 3, delayMs: 40, reason: 'connection reset' });
        return text('after two retries');
      },
      { provider: 'test-provider' },
    );
    const agent = createConductor({ model: 'm' }, { invokeModel: retrying, telemetry: createTelemetry() });
    await agent.submit('hi');

    const [chat] = named('chat m');
    expect(chat.events.map((event) => [event.name, event.attributes])).toEqual([
      [
        'indusagi.model_retry',
        {
          'indusagi.retry.attempt': 2,
          'indusagi.retry.delay_ms': 20,
          'indusagi.retry.reason': 'rate_limit_error',
          'http.response.status_code': 429,
        },
      ],
      ['indusagi.model_retry', { 'indusagi.retry.attempt': 3, 'indusagi.retry.delay_ms': 40, 'indusagi.retry.reason': 'connection reset' }],
    ]);
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
  });
});

describe('runs', () => {
  it('trace an approval across two runs: the request is an event on the first, the call runs under the second', async () => {
    const tools: ToolDefinition[] = [
      { name: 'files.delete', description: 'Deletes.', inputSchema: { type: 'object' }, needsApproval: true, execute: () => 'deleted' },
    ];
    const agent = createConductor(
      { model: 'm', tools },
      { invokeModel: scripted([calls(['d1', 'files_delete', { path: 'x' }]), text('gone')]), telemetry: createTelemetry() },
    );

    expect((await agent.submit('delete x')).status).toBe('waiting');
    expect((await agent.approve('d1')).status).toBe('settled');

    const [first, second] = named('invoke_agent');
    expect(first.attributes).toMatchObject({ 'indusagi.run.operation': 'submit', 'indusagi.run.status': 'waiting' });
    expect(first.events.map((event) => [event.name, event.attributes])).toEqual([
      ['indusagi.run_started', {}],
      ['indusagi.approval_requested', { 'gen_ai.tool.name': 'files.delete', 'gen_ai.tool.call.id': 'd1' }],
    ]);
    expect(childrenOf(first).map((span) => span.name)).toEqual(['chat m']);
    expect(second.attributes).toMatchObject({ 'indusagi.run.operation': 'approve', 'indusagi.run.status': 'settled' });
    expect(childrenOf(second).map((span) => span.name)).toEqual(['execute_tool files.delete', 'chat m']);
  });

  it('queued on one agent, each find their own span: every call and tool lands under the run that made it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const tools: ToolDefinition[] = [
      { name: 'wait', description: 'Waits.', inputSchema: { type: 'object' }, execute: () => gate.then(() => 'waited') },
    ];
    const agent = createConductor(
      { model: 'm', tools },
      { invokeModel: scripted([calls(['w1', 'wait', {}]), text('first'), text('second')]), telemetry: createTelemetry({ agentName: 'q' }) },
    );
    const one = agent.submit('one');
    const two = agent.submit('two');
    setTimeout(release, 10);
    await Promise.all([one, two]);

    const runs = named('invoke_agent q');
    expect(runs).toHaveLength(2);
    expect(childrenOf(runs[0]).map((span) => span.name)).toEqual(['chat m', 'execute_tool wait', 'chat m']);
    expect(childrenOf(runs[1]).map((span) => span.name)).toEqual(['chat m']);
  });
});

describe('span status messages', () => {
  const SECRET = 'card 4111-1111-1111-1111';
  /** Every run that fails somewhere: a tool's own error, an internal bug, a call never run, an API error body. */
  const failEverywhere = async (captureContent: boolean) => {
    const server = await startAnthropicServer();
    try {
      const tools: ToolDefinition[] = [
        {
          name: 'strict',
          description: 'Refuses.',
          inputSchema: { type: 'object' },
          execute: () => Promise.reject(new ToolError(`refused: ${SECRET}`)),
        },
        {
          name: 'buggy',
          description: 'Breaks.',
          inputSchema: { type: 'object' },
          execute: () => {
            throw new RangeError(`internal state for ${SECRET}`);
          },
        },
      ];
      const telemetry = createTelemetry({ captureContent });
      const local = createConductor(
        { model: 'm', tools },
        {
          invokeModel: scripted([calls(['c1', 'strict', {}], ['c2', 'buggy', {}], ['c3', `no_such_${SECRET.length}`, {}]), text('done')]),
          telemetry,
        },
      );
      const errors = console.error;
      console.error = () => {}; // the loop reports the buggy tool's RangeError on the console
      try {
        await local.submit('go');
      } finally {
        console.error = errors;
      }
      server.enqueue(reply.httpError(400, { message: `bad request: ${SECRET}` }));
      const remote = createAgent({ model: 'claude-test' }, { client: server.client(), telemetry });
      await expect(remote.submit('hi')).rejects.toMatchObject({ kind: 'model_error' });
    } finally {
      await server.close();
    }
    return otel.spans().filter((span) => span.status.code === SpanStatusCode.ERROR);
  };

  it('carry only the error’s class or kind with captureContent off: no tool output, internal message or API body', async () => {
    const failed = await failEverywhere(false);
    const status = Object.fromEntries(failed.map((span) => [span.name, span.status.message]));
    // (The SDK's own span, anthropic.messages.create, fails too, without a message.)
    expect(status).toMatchObject({
      'execute_tool strict': 'ToolError (tool_error)',
      'execute_tool buggy': 'RangeError',
      'execute_tool no_such_24': 'tool_not_run',
      'chat claude-test': expect.stringMatching(/^[A-Za-z]+Error \(model_error\)$/),
      invoke_agent: expect.stringMatching(/^[A-Za-z]+ \(model_error\)$/),
    });
    for (const span of failed) expect(JSON.stringify(span.status)).not.toContain('4111');
  });

  it('carry the error’s own message with captureContent on', async () => {
    const failed = await failEverywhere(true);
    const status = Object.fromEntries(failed.map((span) => [span.name, span.status.message]));
    expect(status['execute_tool strict']).toBe(`refused: ${SECRET}`);
    expect(status['execute_tool buggy']).toBe(`internal state for ${SECRET}`);
    expect(status['execute_tool no_such_24']).toBe('Unknown tool "no_such_24".');
    expect(status['chat claude-test']).toContain(`bad request: ${SECRET}`);
    expect(status.invoke_agent).toContain(`bad request: ${SECRET}`);
  });
});

describe('content', () => {
  const run = async (captureContent: boolean) => {
    const tools: ToolDefinition[] = [
      { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object' }, execute: (input: { say: string }) => ({ said: input.say }) },
    ];
    const agent = createConductor(
      { model: 'm', system: 'Be kind.', tools },
      {
        invokeModel: scripted([calls(['e1', 'echo', { say: 'hello' }]), text('It said hello.')]),
        telemetry: createTelemetry({ captureContent }),
      },
    );
    await agent.submit('Echo hello');
  };
  const CONTENT_KEYS = [
    'gen_ai.input.messages',
    'gen_ai.output.messages',
    'gen_ai.system_instructions',
    'gen_ai.tool.call.arguments',
    'gen_ai.tool.call.result',
  ];

  it('stays out of every span unless asked for', async () => {
    await run(false);
    const keys = otel.spans().flatMap((span) => Object.keys(span.attributes));
    expect(keys.length).toBeGreaterThan(0);
    for (const key of CONTENT_KEYS) expect(keys).not.toContain(key);
  });

  it('is recorded in the conventions’ message shapes when asked for', async () => {
    await run(true);
    const [agentSpan] = named('invoke_agent');
    expect(JSON.parse(agentSpan.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Echo hello' }] },
    ]);
    expect(JSON.parse(agentSpan.attributes['gen_ai.output.messages'] as string)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'It said hello.' }], finish_reason: 'stop' },
    ]);
    expect(JSON.parse(agentSpan.attributes['gen_ai.system_instructions'] as string)).toEqual([{ type: 'text', content: 'Be kind.' }]);
    const [first, second] = named('chat m');
    expect(JSON.parse(first.attributes['gen_ai.output.messages'] as string)).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'e1', name: 'echo', arguments: { say: 'hello' } }],
        finish_reason: 'tool_call',
      },
    ]);
    expect(JSON.parse(second.attributes['gen_ai.input.messages'] as string)).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Echo hello' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'e1', name: 'echo', arguments: { say: 'hello' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'e1', response: '{"said":"hello"}' }] },
    ]);
    const [tool] = named('execute_tool echo');
    expect(tool.attributes['gen_ai.tool.call.arguments']).toBe('{"say":"hello"}');
    expect(tool.attributes['gen_ai.tool.call.result']).toBe('{"said":"hello"}');
  });

  it('records images and documents of a prompt as the conventions’ uri and blob parts', async () => {
    const agent = createConductor(
      { model: 'm' },
      { invokeModel: scripted([text('Seen.')]), telemetry: createTelemetry({ captureContent: true }) },
    );
    await agent.submit([
      { kind: 'text', text: 'Compare these.' },
      { kind: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
      { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { kind: 'document', source: { type: 'text', text: 'Plain notes.' }, title: 'notes' },
    ]);
    const [chat] = named('chat m');
    expect(JSON.parse(chat.attributes['gen_ai.input.messages'] as string)).toEqual([
      {
        role: 'user',
        parts: [
          { type: 'text', content: 'Compare these.' },
          { type: 'uri', modality: 'image', uri: 'https://example.com/a.png' },
          { type: 'blob', modality: 'image', mime_type: 'image/png', content: 'iVBORw0KGgo=' },
          { type: 'text', content: 'Plain notes.' },
        ],
      },
    ]);
  });
});

describe('metrics', () => {
  it('record token usage, call and run durations and time to first chunk with the conventions’ attributes', async () => {
    const before = await otel.histogram('gen_ai.client.token.usage');
    const streaming: ModelInvoker = Object.assign(
      async (request: ModelRequest) => {
        request.onFirstChunk?.();
        await new Promise((resolve) => setTimeout(resolve, 15));
        return text('hi');
      },
      { provider: 'metered' },
    );
    const tools: ToolDefinition[] = [{ name: 'noop', description: 'Nothing.', inputSchema: { type: 'object' }, execute: () => 'ok' }];
    const invoke = scripted([calls(['n1', 'noop', {}])]);
    let step = 0;
    const both: ModelInvoker = Object.assign((request: ModelRequest) => (step++ === 0 ? invoke(request) : streaming(request)), {
      provider: 'metered',
    });
    const agent = createConductor(
      { model: 'metered-model', tools },
      { invokeModel: both, telemetry: createTelemetry({ agentName: 'meter' }) },
    );
    await agent.submit('count');

    const base = { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'metered', 'gen_ai.request.model': 'metered-model' };
    const tokens = (await otel.histogram('gen_ai.client.token.usage')).filter(
      (point) => point.attributes['gen_ai.provider.name'] === 'metered',
    );
    expect(before.filter((point) => point.attributes['gen_ai.provider.name'] === 'metered')).toEqual([]);
    const input = tokens.filter((point) => point.attributes['gen_ai.token.type'] === 'input');
    const output = tokens.filter((point) => point.attributes['gen_ai.token.type'] === 'output');
    // Input counts cached tokens too: 10 + 5 read + 2 written, per call.
    expect(input.reduce((sum, point) => sum + point.sum, 0)).toBe(2 * 17);
    expect(output.reduce((sum, point) => sum + point.count, 0)).toBe(2);
    expect(input.map((point) => point.attributes)).toContainEqual({
      ...base,
      'gen_ai.token.type': 'input',
      'gen_ai.response.model': 'm-2026',
    });
    const durations = (await otel.histogram('gen_ai.client.operation.duration')).filter(
      (point) => point.attributes['gen_ai.provider.name'] === 'metered',
    );
    expect(durations.reduce((sum, point) => sum + point.count, 0)).toBe(2);
    const ttfc = (await otel.histogram('gen_ai.client.operation.time_to_first_chunk')).filter(
      (point) => point.attributes['gen_ai.provider.name'] === 'metered',
    );
    // Only the streaming call said when its first chunk came; it came before the 15 ms wait.
    expect(ttfc).toHaveLength(1);
    expect(ttfc[0].count).toBe(1);
    expect(ttfc[0].max!).toBeLessThan(durations.find((point) => point.attributes['gen_ai.response.model'] === 'm-2026')!.max!);
    const runs = (await otel.histogram('gen_ai.invoke_agent.duration')).filter(
      (point) => point.attributes['gen_ai.agent.name'] === 'meter',
    );
    expect(runs).toEqual([
      expect.objectContaining({ count: 1, attributes: { 'gen_ai.agent.name': 'meter', 'gen_ai.request.model': 'metered-model' } }),
    ]);
    const tool = (await otel.histogram('gen_ai.execute_tool.duration')).filter(
      (point) => point.attributes['gen_ai.agent.name'] === 'meter',
    );
    expect(tool).toEqual([
      expect.objectContaining({
        count: 1,
        attributes: { 'gen_ai.tool.name': 'noop', 'gen_ai.tool.type': 'function', 'gen_ai.agent.name': 'meter' },
      }),
    ]);
  });
});

describe('options', () => {
  it('that cannot work are refused with TelemetryOptionsError', () => {
    for (const bad of [{ tracer: {} }, { meter: 5 }, { captureContent: 'yes' }, { agentName: ' ' }, { providerName: 7 }, null]) {
      expect(() => createTelemetry(bad as never), JSON.stringify(bad)).toThrow(TelemetryOptionsError);
    }
  });
});

describe('a model given as the invoker itself', () => {
  it('is traced like one given beside its id, and keeps its card and its checks under telemetry', async () => {
    const seen: ModelRequest[] = [];
    const model: ModelInvoker = Object.assign(scripted([text('hi')], seen), {
      modelId: 'carried-model',
      card: { id: 'carried-model', contextWindow: 20_000, maxOutputTokens: 900 },
      checkControls(controls: { temperature?: number }) {
        if (controls.temperature !== undefined) throw new TelemetryOptionsError('this model takes no temperature');
      },
    });
    const telemetry = createTelemetry({ agentName: 'carried' });

    await createAgent({ model }, { telemetry }).submit('hello');

    expect(seen[0]).toMatchObject({ model: 'carried-model', maxOutputTokens: 900 });
    const chat = otel.spans().find((span) => span.name === 'chat carried-model');
    expect(chat?.attributes).toMatchObject({ 'gen_ai.request.model': 'carried-model', 'gen_ai.provider.name': 'test-provider' });
    // The traced invoker stands in for the model's own checks: a control it refuses fails at creation.
    expect(() => createAgent({ model, temperature: 0.5 }, { telemetry })).toThrow(/this model takes no temperature/);
  });
});
