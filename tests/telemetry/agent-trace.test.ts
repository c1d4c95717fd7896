// The span tree of a traced agent run through the real Anthropic SDK and the loopback server, with the
// real OpenTelemetry SDK recording it in memory: a tool loop that condenses mid-run and whose first call
// is rate limited once, every attribute checked, a tool's own span nested under its execute_tool span,
// and the metrics the same run recorded.
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../src/entries/runtime.js';
import type { RunEvent, ToolDefinition } from '../../src/entries/runtime.js';
import { createTelemetry } from '../../src/telemetry/index.js';
import { reply, type AnthropicTestServer } from '../../src/testing/index.js';
import { serverAndDirPerTest, type TempDir } from '../support/server-and-dir.js';
import { fakeModel, isSummarizerRequest, promptTokens, readChunkTool, tempDir } from '../runtime/agent/compaction-helpers.js';
import { spanTrees, startOtel, toNanos, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());

let server: AnthropicTestServer;
let dir: TempDir;
serverAndDirPerTest(tempDir, (s, d) => ((server = s), (dir = d)));

const STEPS = 14;
const SUMMARY = 'Goal: read the document. Progress: chunks read; they describe a fox.';
const SDK_SCOPE = 'com.anthropic.sdk.typescript';

/** A tool that starts a span of its own, as instrumented application code would. */
const lookupNote: ToolDefinition = {
  name: 'lookup.note',
  description: 'Looks a note up by key.',
  inputSchema: { type: 'object', properties: { key: { type: 'string' } } },
  execute: (input: { key: string }) =>
    trace.getTracer('app').startActiveSpan('app.lookup', (span) => {
      span.setAttribute('app.key', input.key);
      span.end();
      return `note ${input.key}`;
    }),
};

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;

describe('a traced run', () => {
  it('is one invoke_agent span over its chat, execute_tool, condensation and session spans, every attribute as the conventions name it', async () => {
    // The first call is rate limited once; the SDK waits the `retry-after-ms` it is told, then retries.
    server.enqueue(reply.httpError(429, { headers: { 'retry-after-ms': '20' } }));
    fakeModel(server, {
      agent: (_body, n) =>
        n === 0
          ? reply.tools([
              { name: 'read_chunk', input: { n }, id: 'toolu_0' },
              { name: 'lookup_note', input: { key: 'fox' }, id: 'toolu_note' },
            ])
          : n === 1
            ? reply.tools([
                { name: 'read_chunk', input: { n }, id: 'toolu_1' },
                { name: 'no_such_tool', input: {}, id: 'toolu_ghost' },
              ])
            : n < STEPS
              ? reply.tools([{ name: 'read_chunk', input: { n }, id: `toolu_${n}` }])
              : reply.text('The document is about a fox.'),
      summarize: () => reply.text(SUMMARY, { usage: { input_tokens: 900, output_tokens: 30 } }),
    });
    const agent = createAgent(
      {
        model: 'claude-test',
        sessionId: 'traced',
        contextWindow: 6_000,
        maxOutputTokens: 500,
        compaction: { keepRecent: 4 },
        tools: [readChunkTool(() => 1_200), lookupNote],
      },
      { client: server.client({ maxRetries: 1 }), store: new SessionStore(dir.path), telemetry: createTelemetry({ agentName: 'reader' }) },
    );
    const events: RunEvent[] = [];
    agent.subscribe((event) => events.push(event));

    const snapshot = await agent.submit('Read the whole document, then tell me what it says.');
    await agent.close();

    expect(snapshot.status).toBe('settled');
    const spans = otel.spans();
    const roots = spanTrees(spans).map((node) => node.span.name);
    expect(roots).toEqual(['invoke_agent reader', 'indusagi.session.release']);
    const run = spans.find((span) => span.name === 'invoke_agent reader')!;
    expect(run.kind).toBe(SpanKind.INTERNAL);
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
    expect(run.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.agent.name': 'reader',
      'gen_ai.request.model': 'claude-test',
      'gen_ai.conversation.id': 'traced',
      'gen_ai.usage.input_tokens': snapshot.usage.inputTokens + snapshot.usage.cacheReadTokens + snapshot.usage.cacheWriteTokens,
      'gen_ai.usage.output_tokens': snapshot.usage.outputTokens,
      'gen_ai.usage.cache_read.input_tokens': snapshot.usage.cacheReadTokens,
      'gen_ai.usage.cache_creation.input_tokens': snapshot.usage.cacheWriteTokens,
      'indusagi.run.operation': 'submit',
      'indusagi.run.status': 'settled',
    });
    expect(run.events.map((event) => event.name)).toEqual(['indusagi.run_started']);

    // Under the run, in order: the session's lease taken and its records read, then step after step, the
    // condensation between two of them, and the session's records appended once at the end.
    const children = spans.filter((span) => parentOf(span) === idOf(run)).sort((a, b) => toNanos(a.startTime) - toNanos(b.startTime));
    const names = children.map((span) => span.name);
    expect(names.slice(0, 2)).toEqual(['indusagi.session.acquire', 'indusagi.session.read']);
    expect(names.at(-1)).toBe('indusagi.session.append');
    expect(names.filter((name) => name === 'indusagi.condense')).toHaveLength(1);
    const chats = children.filter((span) => span.name === 'chat claude-test');
    expect(chats).toHaveLength(STEPS + 1);
    expect(names.filter((name) => name === 'execute_tool read_chunk')).toHaveLength(STEPS);

    // Each step's chat span: a CLIENT span with the request, the response and the usage the API reported.
    const agentRequests = server.requests.filter((request) => request.body !== undefined && !isSummarizerRequest(request));
    // The first call was made twice (the 429, then the retry): both attempts are under one chat span.
    expect(agentRequests).toHaveLength(STEPS + 2);
    const answered = agentRequests.slice(1);
    chats.forEach((chat, step) => {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.status.code).toBe(SpanStatusCode.UNSET);
      const ttfc = chat.attributes['gen_ai.response.time_to_first_chunk'] as number;
      expect(ttfc).toBeGreaterThan(0);
      expect(ttfc).toBeLessThanOrEqual((toNanos(chat.endTime) - toNanos(chat.startTime)) / 1e9 + 0.001);
      expect(chat.attributes).toEqual({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.request.max_tokens': 500,
        'gen_ai.conversation.id': 'traced',
        'gen_ai.response.id': expect.stringMatching(/^msg_/),
        'gen_ai.response.model': 'claude-test',
        'gen_ai.response.finish_reasons': [step < STEPS ? 'tool_use' : 'end_turn'],
        'gen_ai.usage.input_tokens': promptTokens(answered[step].body),
        'gen_ai.usage.output_tokens': 40,
        'gen_ai.usage.cache_read.input_tokens': 0,
        'gen_ai.usage.cache_creation.input_tokens': 0,
        'gen_ai.response.time_to_first_chunk': ttfc,
      });
      // The SDK's own call spans run inside ours, one per attempt: the chat span was current while the
      // invoker worked, retries included.
      const sdk = spans.filter((span) => parentOf(span) === idOf(chat));
      expect(sdk.map((span) => span.instrumentationScope.name)).toEqual(step === 0 ? [SDK_SCOPE, SDK_SCOPE] : [SDK_SCOPE]);
      // Only the rate-limited call has a retry on it: an event with the wait the server asked for.
      expect(chat.events.map((event) => [event.name, event.attributes])).toEqual(
        step === 0
          ? [
              [
                'indusagi.model_retry',
                {
                  'indusagi.retry.attempt': 2,
                  'indusagi.retry.delay_ms': 20,
                  'indusagi.retry.reason': expect.any(String),
                  'http.response.status_code': 429,
                },
              ],
            ]
          : [],
      );
    });
    expect(new Set(chats.map((chat) => chat.attributes['gen_ai.response.id'])).size).toBe(chats.length);
    const retried = events.find((event) => event.kind === 'model_retry');
    expect(retried).toMatchObject({ attempt: 2, delayMs: 20, status: 429 });
    expect(chats[0].events[0].attributes?.['indusagi.retry.reason']).toBe((retried as { reason: string }).reason);

    // Every tool call is an execute_tool span under the run; the tool's own span nests under its call's.
    const tools = children.filter((span) => span.name.startsWith('execute_tool '));
    const note = tools.find((span) => span.name === 'execute_tool lookup.note')!;
    expect(note.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup.note',
      'gen_ai.tool.call.id': 'toolu_note',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Looks a note up by key.',
      'gen_ai.conversation.id': 'traced',
    });
    expect(note.status.code).toBe(SpanStatusCode.UNSET);
    const own = spans.filter((span) => parentOf(span) === idOf(note));
    expect(own.map((span) => [span.name, span.attributes])).toEqual([['app.lookup', { 'app.key': 'fox' }]]);
    const reads = tools.filter((span) => span.name === 'execute_tool read_chunk');
    expect(reads.map((span) => span.attributes['gen_ai.tool.call.id'])).toEqual(Array.from({ length: STEPS }, (_, n) => `toolu_${n}`));
    for (const read of reads) expect(read.attributes['gen_ai.tool.description']).toBe('Reads one numbered chunk of the document.');
    // A call the loop answered without running anything still has its span, failed as never run.
    const ghost = tools.find((span) => span.name === 'execute_tool no_such_tool')!;
    expect(ghost.attributes).toMatchObject({ 'gen_ai.tool.call.id': 'toolu_ghost', 'error.type': 'tool_not_run' });
    expect(ghost.status).toEqual({ code: SpanStatusCode.ERROR, message: 'tool_not_run' });

    // The condensation: its summarizer call is a chat span under it, and it carries what `compacted` said.
    const compacted = events.find((event): event is Extract<RunEvent, { kind: 'compacted' }> => event.kind === 'compacted')!;
    const condense = children.find((span) => span.name === 'indusagi.condense')!;
    expect(condense.attributes).toEqual({
      'gen_ai.conversation.id': 'traced',
      'indusagi.condensation.tokens_before': compacted.tokensBefore,
      'indusagi.condensation.tokens_after': compacted.tokensAfter,
      'indusagi.condensation.turns_removed': compacted.removed,
      'indusagi.condensation.summarizer_calls': 1,
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 0,
      'gen_ai.usage.cache_creation.input_tokens': 0,
    });
    const summarizer = spans.filter((span) => parentOf(span) === idOf(condense));
    expect(summarizer).toHaveLength(1);
    expect(summarizer[0].attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'indusagi.model_call.purpose': 'summary',
      'gen_ai.response.finish_reasons': ['end_turn'],
      'gen_ai.usage.input_tokens': 900,
      'gen_ai.usage.output_tokens': 30,
    });
    // The session: read empty, appended with what the run wrote, released after the run.
    const read = children[1];
    expect(read.attributes).toEqual({
      'gen_ai.conversation.id': 'traced',
      'indusagi.session.records': 0,
      'indusagi.session.lines': 0,
      'indusagi.session.skipped_lines': 0,
      'indusagi.session.truncated_tail': false,
      'indusagi.session.bytes': 0,
      'indusagi.session.live_path': false,
    });
    const persisted = children.filter((span) => span.name === 'indusagi.session.append');
    const { report } = await new SessionStore(dir.path).loadSessionWithReport('traced');
    expect(persisted.reduce((sum, span) => sum + (span.attributes['indusagi.session.bytes'] as number), 0)).toBe(report.bytes);
    expect(persisted.reduce((sum, span) => sum + (span.attributes['indusagi.session.records'] as number), 0)).toBe(report.records);
  });
});
