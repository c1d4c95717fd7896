// The behaviour every ModelInvoker must have, run against each invoker by its own test file (as Hono
// runs one router suite against every router): the Anthropic invoker, the OpenAI invoker and the AI SDK
// adapter, each through its real SDK and a loopback server speaking its vendor's wire format. A
// harness translates the provider-neutral scripts below into that wire format and reads back what the
// SDK sent as a neutral transcript, so every assertion here holds for every vendor.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { IndusagiError, ModelCallError, PromptTooLongError, RunAbortedError } from '../../../src/entries/errors.js';
import { MemorySessionStore } from '../../../src/entries/store.js';
import { HISTORY_NOTE } from '../../../src/runtime/history/index.js';
import { isPromptTooLongError } from '../../../src/runtime/compaction/index.js';
import type { AgentConfig, AgentDeps, ModelInvoker, RunEvent, ToolDefinition } from '../../../src/entries/runtime.js';
import type { ModelRequest, ModelRetry } from '../../../src/entries/models.js';
import type { RunFault } from '../../../src/entries/errors.js';
import {
  DEFAULT_MAX_EVENT_BYTES,
  StreamEventTooLargeError,
  StreamIdleError,
  type StreamLimits,
} from '../../../src/providers/shared/index.js';

export type ScriptedCall = { id: string; name: string; input?: unknown; rawJson?: string };

/** Usage as the neutral scripts state it: `input` is the uncached part of the prompt. */
export type ScriptedUsage = { input: number; output: number; cacheRead?: number };

/** What the model does for one request, whatever the vendor. */
export type ScriptedReply =
  | {
      kind: 'reply';
      text?: string;
      /** How the text streams; default a few even pieces. */
      chunks?: string[];
      calls?: ScriptedCall[];
      /** `max_tokens`: cut off by the output cap. Default: the reply ends normally. */
      stop?: 'max_tokens';
      usage?: ScriptedUsage;
      /** Pause between stream frames, for aborting mid-stream. */
      frameDelayMs?: number;
    }
  /** An HTTP error; `retryAfterMs` tells the client how long to wait before retrying it. */
  | { kind: 'http_error'; status: number; retryAfterMs?: number }
  /** The vendor's own "the prompt is over the window" answer. */
  | { kind: 'too_long' }
  /** A stream that breaks after streaming `text` partway: an error event, a dropped connection, or a frame that is not JSON. */
  | { kind: 'broken'; how: 'error_event' | 'drop' | 'garbage'; text: string }
  /**
   * A stream that begins (the vendor's first event) and then goes on without content until the client
   * hangs up: silent, or sending only SSE comments or the vendor's keep-alive events.
   */
  | { kind: 'stall'; how: 'silence' | 'comments' | 'pings' }
  /** A stream that begins and then sends one line of `bytes` bytes that never ends, as fast as the client reads. */
  | { kind: 'flood'; bytes: number };

/**
 * What reached the server, read back neutrally. Transcript lines: `user: …`, `assistant: …`,
 * `call <id> <name> <json>`, `result <id>: <content>`.
 */
export type SentRequest = { model: string; system: string; tools: string[]; maxOutputTokens: number; transcript: string[] };

export type InvokerHarness = {
  /** The invoker under test, over its real SDK pointed at the loopback server; its client retries twice. */
  invoker: ModelInvoker;
  /** The same invoker over the same server, reading its streams within `limits`. */
  limited(limits: StreamLimits): ModelInvoker;
  /** Bytes of request `index`'s streamed reply the server wrote before the client hung up. */
  bytesSent(index: number): number;
  /** The model id the invoker always sends, for one bound to its model (an AI SDK model object); else it sends `request.model`. */
  boundModel?: string;
  script(...replies: ScriptedReply[]): void;
  /** Answers requests once the script runs out. */
  respond(responder: (sent: SentRequest, index: number) => ScriptedReply): void;
  sent(): SentRequest[];
  /** Whether the client hung up on request `index` before its reply was complete. */
  closedEarly(index: number): boolean;
  close(): Promise<void>;
};

const reply = (text: string, extra: Omit<Extract<ScriptedReply, { kind: 'reply' }>, 'kind' | 'text'> = {}): ScriptedReply => ({
  kind: 'reply',
  text,
  ...extra,
});
const calls = (...list: ScriptedCall[]): ScriptedReply => ({ kind: 'reply', calls: list });

const weather: ToolDefinition = {
  name: 'weather.today',
  description: 'Today’s weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: (input: { city: string }) => ({ city: input.city, sky: 'clear' }),
};

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'test-model',
    messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
    tools: [],
    maxOutputTokens: 1000,
    ...overrides,
  };
}

const failureOf = (promise: Promise<unknown>): Promise<any> =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

export function modelInvokerContract(name: string, start: () => Promise<InvokerHarness>): void {
  describe(`${name}: the ModelInvoker contract`, () => {
    let h: InvokerHarness;
    beforeEach(async () => {
      h = await start();
    });
    afterEach(async () => {
      await h.close();
    });

    describe('one call', () => {
      it('streams text through onText piece by piece and resolves with the whole turn, end_turn and usage', async () => {
        h.script(reply('The sky is clear today.', { chunks: ['The sky ', 'is clear ', 'today.'], usage: { input: 120, output: 7 } }));
        const deltas: string[] = [];

        const result = await h.invoker(request({ onText: (delta) => deltas.push(delta) }));

        expect(deltas).toEqual(['The sky ', 'is clear ', 'today.']);
        expect(result.turn).toEqual({ role: 'assistant', blocks: [{ kind: 'text', text: 'The sky is clear today.' }] });
        expect(result.stopReason).toBe('end_turn');
        expect(result.usage).toEqual({ inputTokens: 120, outputTokens: 7, cacheWriteTokens: 0, cacheReadTokens: 0 });
      });

      it('says once when the stream began, before any text, and names the response and the model that gave it', async () => {
        h.script(reply('Clear.', { chunks: ['Cle', 'ar.'] }));
        const seen: string[] = [];

        const result = await h.invoker(request({ onFirstChunk: () => seen.push('first chunk'), onText: (delta) => seen.push(delta) }));

        expect(seen).toEqual(['first chunk', 'Cle', 'ar.']);
        expect(result.id).toEqual(expect.any(String));
        expect(result.id).not.toBe('');
        expect(result.model).toEqual(expect.any(String));
        expect(result.model).not.toBe('');
      });

      it('carries the model it is built for as its modelId, and none when it calls what each request names', () => {
        expect(h.invoker.modelId).toBe(h.boundModel);
      });

      it('sends the model, the stable then the volatile system text, the tools and the output cap', async () => {
        h.script(reply('ok'));
        const tool = {
          name: 'weather_today',
          description: 'Weather.',
          inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
        };

        await h.invoker(
          request({
            model: 'model-a',
            system: 'You are terse.',
            volatileSystem: 'Recalled: the user is in Pune.',
            tools: [tool],
            maxOutputTokens: 321,
          }),
        );

        const [sent] = h.sent();
        expect(sent).toMatchObject({
          model: h.boundModel ?? 'model-a',
          tools: ['weather_today'],
          maxOutputTokens: 321,
          transcript: ['user: hi'],
        });
        expect(sent.system).toContain('You are terse.');
        expect(sent.system.indexOf('You are terse.')).toBeLessThan(sent.system.indexOf('Recalled: the user is in Pune.'));
      });

      it('resolves parallel tool calls in order, inputs parsed, after the text that came first, with stop reason tool_use', async () => {
        h.script({
          kind: 'reply',
          text: 'Checking both.',
          calls: [
            { id: 'call_a', name: 'weather_today', input: { city: 'Pune' } },
            { id: 'call_b', name: 'weather_today', input: { city: 'Oslo' } },
          ],
        });

        const result = await h.invoker(request());

        expect(result.stopReason).toBe('tool_use');
        expect(result.turn.blocks).toEqual([
          { kind: 'text', text: 'Checking both.' },
          { kind: 'tool_call', id: 'call_a', name: 'weather_today', input: { city: 'Pune' } },
          { kind: 'tool_call', id: 'call_b', name: 'weather_today', input: { city: 'Oslo' } },
        ]);
      });

      it('sends a tool exchange back in order: text, each call under its id, each result under its call id', async () => {
        h.script(reply('Both clear.'));

        await h.invoker(
          request({
            messages: [
              { role: 'user', blocks: [{ kind: 'text', text: 'Weather in Pune and Oslo?' }] },
              {
                role: 'assistant',
                blocks: [
                  { kind: 'thinking', text: 'Two cities, two calls.' },
                  { kind: 'text', text: 'Checking both.' },
                  { kind: 'tool_call', id: 'call_a', name: 'weather_today', input: { city: 'Pune' } },
                  { kind: 'tool_call', id: 'call_b', name: 'weather_today', input: { city: 'Oslo' } },
                ],
              },
              {
                role: 'user',
                blocks: [
                  { kind: 'tool_result', callId: 'call_a', content: '{"sky":"clear"}' },
                  { kind: 'tool_result', callId: 'call_b', content: 'The weather service is down.', isError: true },
                ],
              },
            ],
          }),
        );

        expect(h.sent()[0].transcript).toEqual([
          'user: Weather in Pune and Oslo?',
          'assistant: Checking both.',
          'call call_a weather_today {"city":"Pune"}',
          'call call_b weather_today {"city":"Oslo"}',
          'result call_a: {"sky":"clear"}',
          // An error result's text arrives whole; a vendor may wrap it to mark it as an error.
          expect.stringMatching(/^result call_b: .*The weather service is down\./),
        ]);
      });

      it('keeps a call whose input is not valid JSON as the raw text, for the loop to answer with an error', async () => {
        h.script(calls({ id: 'call_bad', name: 'weather_today', rawJson: '{"city": "Pu' }));

        const result = await h.invoker(request());

        expect(result.turn.blocks).toEqual([{ kind: 'tool_call', id: 'call_bad', name: 'weather_today', input: '{"city": "Pu' }]);
      });

      it('says max_tokens when the output cap cut the reply off', async () => {
        h.script(reply('The first half of a long', { stop: 'max_tokens' }));

        const result = await h.invoker(request());

        expect(result.stopReason).toBe('max_tokens');
        expect(result.turn.blocks).toEqual([{ kind: 'text', text: 'The first half of a long' }]);
      });

      it('reports prompt tokens read from the cache as cache reads, apart from the uncached input', async () => {
        h.script(reply('ok', { usage: { input: 40, output: 3, cacheRead: 1900 } }));

        const result = await h.invoker(request());

        expect(result.usage).toMatchObject({ inputTokens: 40, outputTokens: 3, cacheReadTokens: 1900 });
      });

      it('names its provider and refuses malformed options under its own key up front, leaving other providers’ keys alone', () => {
        const provider = h.invoker.provider;
        expect(typeof provider).toBe('string');
        let thrown: unknown;
        try {
          h.invoker.checkOptions?.({ [provider!]: 'fast' as never });
        } catch (error) {
          thrown = error;
        }
        expect(IndusagiError.isInstance(thrown)).toBe(true);
        expect((thrown as IndusagiError).kind).toBe('invalid_request');
        expect(() => h.invoker.checkOptions?.({ 'some-other-provider': { anything: 1 } })).not.toThrow();
      });
    });

    describe('failures', () => {
      it('rejects with RunAbortedError when the signal fires mid-stream, and closes the HTTP request', async () => {
        h.script(reply('slow words here', { chunks: ['slow ', 'words ', 'here'], frameDelayMs: 150 }));
        const controller = new AbortController();

        const error = await failureOf(h.invoker(request({ signal: controller.signal, onText: () => controller.abort() })));

        expect(RunAbortedError.isInstance(error)).toBe(true);
        await expect.poll(() => h.closedEarly(0)).toBe(true);
      });

      it('rejects with RunAbortedError, sending nothing, when the signal fired before the call', async () => {
        const controller = new AbortController();
        controller.abort();

        const error = await failureOf(h.invoker(request({ signal: controller.signal })));

        expect(RunAbortedError.isInstance(error)).toBe(true);
        expect(h.sent()).toHaveLength(0);
      });

      it('retries a 429 after the wait the server asked for, and resolves with the retried reply', async () => {
        h.script({ kind: 'http_error', status: 429, retryAfterMs: 5 }, reply('Second time lucky.'));

        const result = await h.invoker(request());

        expect(h.sent()).toHaveLength(2);
        expect(result.turn.blocks).toEqual([{ kind: 'text', text: 'Second time lucky.' }]);
      });

      it('rejects with ModelCallError carrying the HTTP status once the retries run out', async () => {
        const overloaded: ScriptedReply = { kind: 'http_error', status: 503, retryAfterMs: 1 };
        h.script(overloaded, overloaded, overloaded);

        const error = await failureOf(h.invoker(request()));

        expect(h.sent()).toHaveLength(3);
        expect(ModelCallError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ kind: 'model_error', status: 503 });
      });

      it('rejects at once, unretried, with the status of an error a retry cannot fix', async () => {
        h.script({ kind: 'http_error', status: 401 });

        const error = await failureOf(h.invoker(request()));

        expect(h.sent()).toHaveLength(1);
        expect(error).toMatchObject({ name: 'ModelCallError', kind: 'model_error', status: 401 });
      });

      it('rejects with PromptTooLongError for the vendor’s “prompt over the window” answer, which the runtime recognises', async () => {
        h.script({ kind: 'too_long' });

        const error = await failureOf(h.invoker(request()));

        expect(PromptTooLongError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ status: 400 });
        expect(isPromptTooLongError(error)).toBe(true);
        expect(h.sent()).toHaveLength(1);
      });

      it.each(['silence', 'comments', 'pings'] as const)(
        'closes a stream that began and then stalls (%s) once idleTimeoutMs passes without content, retries it at once, and then fails with StreamIdleError',
        async (how) => {
          h.respond(() => ({ kind: 'stall', how }));
          const retries: ModelRetry[] = [];

          const error = await failureOf(h.limited({ idleTimeoutMs: 200 })(request({ onRetry: (retry) => retries.push(retry) })));

          expect(StreamIdleError.isInstance(error)).toBe(true);
          expect(error).toMatchObject({ kind: 'model_error', idleTimeoutMs: 200 });
          expect(isPromptTooLongError(error)).toBe(false);
          expect(h.sent()).toHaveLength(3);
          expect(retries).toEqual([
            { attempt: 2, delayMs: 0, reason: 'stream idle' },
            { attempt: 3, delayMs: 0, reason: 'stream idle' },
          ]);
          await expect.poll(() => [0, 1, 2].every((index) => h.closedEarly(index))).toBe(true);
        },
      );

      it('cuts a stream whose one line grows past maxEventBytes with StreamEventTooLargeError, unretried, long before the line ends', async () => {
        const line = 300 * 2 ** 20;
        h.script({ kind: 'flood', bytes: line });

        const error = await failureOf(h.limited({ maxEventBytes: 2 ** 20 })(request()));

        expect(StreamEventTooLargeError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ kind: 'model_error', maxEventBytes: 2 ** 20 });
        expect(h.sent()).toHaveLength(1);
        await expect.poll(() => h.closedEarly(0)).toBe(true);
        // The client read the cap and what the sockets held when it hung up, not the 300 MB line.
        expect(h.bytesSent(0)).toBeLessThan(32 * 2 ** 20);
      });

      it('cuts such a line at the default cap too, with the invoker as it comes', async () => {
        h.script({ kind: 'flood', bytes: 300 * 2 ** 20 });

        const error = await failureOf(h.invoker(request()));

        expect(error).toMatchObject({ name: 'StreamEventTooLargeError', maxEventBytes: DEFAULT_MAX_EVENT_BYTES });
        await expect.poll(() => h.closedEarly(0)).toBe(true);
        expect(h.bytesSent(0)).toBeLessThan(DEFAULT_MAX_EVENT_BYTES + 32 * 2 ** 20);
      });

      it.each(['error_event', 'drop', 'garbage'] as const)(
        'rejects with ModelCallError when the stream breaks (%s), keeping nothing of it',
        async (how) => {
          h.script({ kind: 'broken', how, text: 'Half a sentence that never ends' });

          const error = await failureOf(h.invoker(request()));

          expect(ModelCallError.isInstance(error)).toBe(true);
          expect(error.kind).toBe('model_error');
          expect(isPromptTooLongError(error)).toBe(false);
        },
      );
    });

    describe('under the conductor: createAgent({ model: invoker }), or by id beside deps.invokeModel', () => {
      // An invoker built for one model is the agent's `model`; one that calls whatever a request names goes beside the id.
      const agentOver = (config: Omit<AgentConfig, 'model'>, deps: AgentDeps = {}, invoker: ModelInvoker = h.invoker) =>
        invoker.modelId !== undefined
          ? createAgent({ ...config, model: invoker }, deps)
          : createAgent({ ...config, model: 'test-model' }, { ...deps, invokeModel: invoker });

      it('runs a tool loop to the answer, sending the tool result back under the model’s call id', async () => {
        h.script(calls({ id: 'call_w', name: 'weather_today', input: { city: 'Pune' } }), reply('Clear skies in Pune.'));
        const agent = agentOver({ system: 'Answer briefly.', tools: [weather] });
        const events = record(agent);

        const snapshot = await agent.submit('Weather in Pune?');

        expect(snapshot).toMatchObject({ status: 'settled', text: 'Clear skies in Pune.' });
        expect(events.find((e) => e.kind === 'tool_finished')).toMatchObject({
          name: 'weather.today',
          callId: 'call_w',
          result: { city: 'Pune', sky: 'clear' },
        });
        expect(textOf(events)).toBe('Clear skies in Pune.');
        expect(h.sent()[1].transcript).toEqual([
          'user: Weather in Pune?',
          'call call_w weather_today {"city":"Pune"}',
          'result call_w: {"city":"Pune","sky":"clear"}',
        ]);
        await agent.close();
      });

      it('runs parallel calls at once and sends every result back in call order', async () => {
        h.script(
          calls(
            { id: 'call_1', name: 'weather_today', input: { city: 'Pune' } },
            { id: 'call_2', name: 'weather_today', input: { city: 'Oslo' } },
          ),
          reply('Both clear.'),
        );
        const agent = agentOver({ tools: [weather] });

        await agent.submit('Pune and Oslo?');

        expect(h.sent()[1].transcript.slice(-2)).toEqual([
          'result call_1: {"city":"Pune","sky":"clear"}',
          'result call_2: {"city":"Oslo","sky":"clear"}',
        ]);
        await agent.close();
      });

      it('holds a call that needs approval; a rejection reaches the model, an approval runs the tool', async () => {
        const writes: string[] = [];
        const write: ToolDefinition = {
          name: 'files.write',
          description: 'Writes a note.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
          needsApproval: true,
          execute: (input: { text: string }) => (writes.push(input.text), 'written'),
        };
        h.script(
          calls({ id: 'call_x', name: 'files_write', input: { text: 'first' } }),
          reply('Not written, as you asked.'),
          calls({ id: 'call_y', name: 'files_write', input: { text: 'second' } }),
          reply('Written.'),
        );
        const agent = agentOver({ tools: [write] });

        expect(await agent.submit('write first')).toMatchObject({ status: 'waiting' });
        expect(await agent.reject('call_x', 'not now')).toMatchObject({ status: 'settled', text: 'Not written, as you asked.' });
        expect(h.sent()[1].transcript.at(-1)).toMatch(/^result call_x: .*not now/);
        expect(await agent.submit('write second')).toMatchObject({ status: 'waiting' });
        expect(await agent.approve('call_y')).toMatchObject({ status: 'settled', text: 'Written.' });

        expect(writes).toEqual(['second']);
        expect(h.sent()[3].transcript.at(-1)).toBe('result call_y: written');
        await agent.close();
      });

      it('aborts mid-stream: the run faults aborted, keeps no half reply and the request is closed', async () => {
        h.script(reply('slow words here', { chunks: ['slow ', 'words ', 'here'], frameDelayMs: 150 }));
        const agent = agentOver({});
        agent.subscribe((e) => {
          if (e.kind === 'text_delta') agent.abort();
        });

        const fault = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

        expect(fault.kind).toBe('aborted');
        expect(fault.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }]);
        await expect.poll(() => h.closedEarly(0)).toBe(true);
        await agent.close();
      });

      it('settles through a 429 the client retries', async () => {
        h.script({ kind: 'http_error', status: 429, retryAfterMs: 5 }, reply('Answered after the rate limit.'));
        const agent = agentOver({});

        const snapshot = await agent.submit('hi');

        expect(snapshot).toMatchObject({ status: 'settled', text: 'Answered after the rate limit.' });
        expect(h.sent()).toHaveLength(2);
        await agent.close();
      });

      it('retries a stream that stalled before any text and settles with the retried reply, reporting the retry', async () => {
        h.script({ kind: 'stall', how: 'silence' });
        // Any further attempt answers: a loaded machine may make a healthy reply look stalled too.
        h.respond(() => reply('Back again.'));
        const agent = agentOver({}, {}, h.limited({ idleTimeoutMs: 1_000 }));
        const events = record(agent);

        const snapshot = await agent.submit('hi');

        expect(snapshot).toMatchObject({ status: 'settled', text: 'Back again.' });
        expect(events.filter((e) => e.kind === 'model_retry')[0]).toEqual({
          kind: 'model_retry',
          attempt: 2,
          delayMs: 0,
          reason: 'stream idle',
          runId: expect.any(String),
        });
        expect(textOf(events)).toBe('Back again.');
        await agent.close();
      });

      it('faults model_error with StreamIdleError as its cause once every attempt stalled', async () => {
        h.respond(() => ({ kind: 'stall', how: 'pings' }));
        const agent = agentOver({}, {}, h.limited({ idleTimeoutMs: 200 }));
        const events = record(agent);

        const fault = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

        expect(fault.kind).toBe('model_error');
        expect(StreamIdleError.isInstance(fault.cause)).toBe(true);
        expect(events.filter((e) => e.kind === 'model_retry')).toHaveLength(2);
        expect(fault.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }]);
        await agent.close();
      });

      it('faults model_error for a malformed stream and keeps no half reply', async () => {
        h.script({ kind: 'broken', how: 'garbage', text: 'Half a sentence' });
        const agent = agentOver({});

        const fault = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

        expect(fault.kind).toBe('model_error');
        expect(ModelCallError.isInstance(fault.cause)).toBe(true);
        expect(fault.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }]);
        await agent.close();
      });

      it('condenses when the API says the prompt is over the window, retries once and settles', async () => {
        const SUMMARY = 'Goal: plan the trip. Identifiers: booking REF-4471.';
        let agentCalls = 0;
        h.respond((sent) => {
          if (sent.system.startsWith('You condense the earlier part')) return reply(SUMMARY);
          const n = agentCalls++;
          if (n < 2) return reply(`Answer ${n}: ${'we talked about the trip at length. '.repeat(20)}`);
          return n === 2 ? { kind: 'too_long' } : reply('Here is the whole itinerary.');
        });
        const agent = agentOver(
          { sessionId: 'trip', maxOutputTokens: 500, compaction: { keepRecent: 2 } },
          { store: new MemorySessionStore() },
        );
        const events = record(agent);
        await agent.submit('Plan a trip to Lisbon for me.');
        await agent.submit('We leave on Friday; the booking is REF-4471.');

        const snapshot = await agent.submit('Now write out the itinerary.');

        expect(snapshot).toMatchObject({ status: 'settled', text: 'Here is the whole itinerary.' });
        // ask, ask, the refused call, the summarizer, the retry.
        const sent = h.sent();
        expect(sent).toHaveLength(5);
        expect(sent[3].transcript[0]).toContain('Plan a trip to Lisbon for me.');
        expect(sent[4].transcript[0]).toBe(`user: ${COMPACTION_PREFIX}\n${SUMMARY}`);
        // With a store the summary says the turns it replaced can be searched (history recall).
        expect(sent[4].transcript[1]).toBe(`user: ${HISTORY_NOTE}`);
        expect(sent[4].transcript.slice(2)).toEqual(sent[2].transcript.slice(-2));
        expect(events.filter((e) => e.kind === 'compacted')).toHaveLength(1);
        await agent.close();
      });
    });
  });
}

function record(agent: { subscribe(handler: (e: RunEvent) => void): () => void }): RunEvent[] {
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

const textOf = (events: RunEvent[]) => events.map((e) => (e.kind === 'text_delta' ? e.delta : '')).join('');
