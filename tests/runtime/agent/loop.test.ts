import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent, DEFAULT_MAX_STEPS } from '../../../src/entries/runtime.js';
import { RunFault, AgentConfigError, ToolError, ToolNameCollisionError, DuplicateToolError } from '../../../src/entries/errors.js';
import type { ModelInvoker, ToolDefinition, Turn } from '../../../src/entries/runtime.js';
import type { ModelRequest } from '../../../src/entries/models.js';

import { call, deferred, record, say, scriptedModel } from './helpers.js';

const schema = { type: 'object', properties: {} };
const tool = (name: string, execute: ToolDefinition['execute'], extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: schema,
  execute,
  ...extra,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the loop through createAgent', () => {
  it('runs a multi-step tool conversation and sends each result back until the model stops asking', async () => {
    const model = scriptedModel(
      call({ name: 'add', input: { a: 1, b: 2 }, id: 'c1' }),
      call({ name: 'add', input: { a: 3, b: 4 }, id: 'c2' }),
      say('1+2=3 and 3+4=7'),
    );
    const add = tool('add', (input: { a: number; b: number }) => input.a + input.b);
    const agent = createAgent({ model: 'claude-sonnet-4-5', tools: [add] }, { invokeModel: model.invoke });

    const snapshot = await agent.submit('add things');

    expect(snapshot.status).toBe('settled');
    expect(snapshot.text).toBe('1+2=3 and 3+4=7');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[1].messages.at(-1)).toEqual({ role: 'user', blocks: [{ kind: 'tool_result', callId: 'c1', content: '3' }] });
    expect(model.requests[2].messages.at(-1)).toEqual({ role: 'user', blocks: [{ kind: 'tool_result', callId: 'c2', content: '7' }] });
    expect(snapshot.messages.map((t) => t.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(snapshot.usage).toEqual({ inputTokens: 30, outputTokens: 15, cacheWriteTokens: 0, cacheReadTokens: 0 });
  });

  it('runs parallel calls at once and returns results in call order even when they finish out of order', async () => {
    const gates = { slow: deferred(), fast: deferred() };
    const started: string[] = [];
    const slow = tool('slow', async () => {
      started.push('slow');
      await gates.slow.promise;
      return 'slow done';
    });
    const fast = tool('fast', async () => {
      started.push('fast');
      await gates.fast.promise;
      return 'fast done';
    });
    const model = scriptedModel(call({ name: 'slow', id: 'a' }, { name: 'fast', id: 'b' }), say('ok'));
    const agent = createAgent({ model: 'm', tools: [slow, fast] }, { invokeModel: model.invoke });
    const events = record(agent);

    const run = agent.submit('go');
    await vi.waitFor(() => expect(started).toEqual(['slow', 'fast']));
    gates.fast.resolve();
    await vi.waitFor(() => expect(events.some((e) => e.kind === 'tool_finished' && e.callId === 'b')).toBe(true));
    gates.slow.resolve();
    await run;

    const finished = events.filter((e) => e.kind === 'tool_finished').map((e) => (e as { callId: string }).callId);
    expect(finished).toEqual(['b', 'a']);
    expect(model.requests[1].messages.at(-1)!.blocks).toEqual([
      { kind: 'tool_result', callId: 'a', content: 'slow done' },
      { kind: 'tool_result', callId: 'b', content: 'fast done' },
    ]);
  });

  it('runs calls one at a time, in call order, with `sequential`', async () => {
    const log: string[] = [];
    const step = (name: string) =>
      tool(name, async () => {
        log.push(`${name} start`);
        await new Promise((r) => setImmediate(r));
        log.push(`${name} end`);
        return name;
      });
    const model = scriptedModel(call({ name: 'one', id: '1' }, { name: 'two', id: '2' }), say('done'));
    const agent = createAgent({ model: 'm', tools: [step('one'), step('two')], sequential: true }, { invokeModel: model.invoke });

    await agent.submit('go');

    expect(log).toEqual(['one start', 'one end', 'two start', 'two end']);
  });

  it('shows the model sanitized names while execute, events, snapshots and stored turns keep the dotted ones', async () => {
    const seen: unknown[] = [];
    const list = tool('notes.list', (input, ctx) => {
      seen.push({ input, callId: ctx.callId });
      return ['buy milk'];
    });
    const model = scriptedModel(call({ name: 'notes_list', input: { tag: 'home' }, id: 'n1' }), say('You have one note.'));
    const agent = createAgent({ model: 'm', tools: [list] }, { invokeModel: model.invoke });
    const events = record(agent);

    const snapshot = await agent.submit('what notes?');

    expect(model.requests[0].tools.map((t) => t.name)).toEqual(['notes_list']);
    expect(model.requests[1].messages[1].blocks[0]).toMatchObject({ kind: 'tool_call', name: 'notes_list' });
    expect(seen).toEqual([{ input: { tag: 'home' }, callId: 'n1' }]);
    expect(events.find((e) => e.kind === 'tool_started')).toMatchObject({ name: 'notes.list', callId: 'n1' });
    expect(events.find((e) => e.kind === 'tool_finished')).toMatchObject({ name: 'notes.list', result: ['buy milk'], isError: false });
    expect(snapshot.messages[1].blocks[0]).toMatchObject({ kind: 'tool_call', name: 'notes.list' });
    expect(model.requests[1].messages.at(-1)!.blocks[0]).toEqual({ kind: 'tool_result', callId: 'n1', content: '["buy milk"]' });
  });

  it('keeps what the model sees from run to run, names sanitized, and builds it again when the context is condensed or replaced', async () => {
    const list = tool('notes.list', () => ['buy milk']);
    const model = scriptedModel(
      call({ name: 'notes_list', id: 'n1' }),
      say('One note.'),
      say('Still one.'),
      say('Summary: notes were listed.'),
      say('Yes.'),
    );
    const agent = createAgent({ model: 'm', tools: [list], compaction: { keepRecent: 2 } }, { invokeModel: model.invoke });
    const shown = (turns: Turn[]) =>
      turns.map((turn) => turn.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind === 'tool_call' ? b.name : b.kind)).join('|'));

    await agent.submit('what notes?');
    await agent.submit('and now?');
    // The second run sends the first run's call under the name the model knows.
    expect(shown(model.requests[2].messages)).toEqual(['what notes?', 'notes_list', 'tool_result', 'One note.', 'and now?']);

    const { snapshot } = await agent.condense();
    await agent.submit('sure?');
    expect(shown(model.requests[4].messages)).toEqual([...shown(snapshot.messages), 'sure?']);
    expect(shown(model.requests[4].messages)[0]).toMatch(/Summary: notes were listed\./);
  });

  it.each(['notes.list', 'notes'])(
    'hands each request messages of its own that later steps and a condensation leave as sent (tool %s)',
    async (name) => {
      // Kept as they came, not copied, and not read until the runs are over: what each request holds then
      // must be what it was sent, however the context grew or was condensed after it.
      const kept: ModelRequest[] = [];
      const replies = [
        call({ name: name.replace('.', '_'), id: 'n1' }),
        say('One note.'),
        say('Still one.'),
        say('Summary: listed.'),
        say('Yes.'),
      ];
      const invokeModel: ModelInvoker = async (request) => {
        kept.push(request);
        return replies.shift()!;
      };
      const agent = createAgent({ model: 'm', tools: [tool(name, () => ['milk'])], compaction: { keepRecent: 2 } }, { invokeModel });
      const shown = (turns: Turn[]) => turns.map((turn) => turn.blocks.map((b) => (b.kind === 'text' ? b.text : b.kind)).join('|'));

      await agent.submit('what notes?');
      await agent.submit('and now?');
      const { snapshot } = await agent.condense();
      await agent.submit('sure?');

      const before = ['what notes?', 'tool_call', 'tool_result', 'One note.', 'and now?'];
      expect(kept).toHaveLength(5);
      // kept[3] is the summarizer's own request.
      expect([0, 1, 2, 4].map((i) => shown(kept[i].messages))).toEqual([
        before.slice(0, 1),
        before.slice(0, 3),
        before,
        [...shown(snapshot.messages), 'sure?'],
      ]);
      expect(shown(snapshot.messages)[0]).toMatch(/Summary: listed\./);
      expect(kept[2].messages).toBe(kept[2].messages);
      expect(kept[0].messages).toBe(kept[0].messages);
      // A plain property as far as a copy of the request can tell, and one an invoker may replace.
      expect(JSON.parse(JSON.stringify({ ...kept[1], signal: undefined })).messages).toEqual(kept[1].messages);
      expect(Object.keys(kept[1]).slice(0, 3)).toEqual(['model', 'messages', 'tools']);
      const mine: Turn[] = [];
      kept[1].messages = mine;
      expect(kept[1].messages).toBe(mine);
    },
  );

  it('refuses at set-up two tool names that sanitize alike, and duplicate names', () => {
    const noop = () => null;
    expect(() =>
      createAgent({ model: 'm', tools: [tool('a.b', noop), tool('a_b', noop)] }, { invokeModel: scriptedModel().invoke }),
    ).toThrow(ToolNameCollisionError);
    expect(() => createAgent({ model: 'm', tools: [tool('x', noop), tool('x', noop)] }, { invokeModel: scriptedModel().invoke })).toThrow(
      DuplicateToolError,
    );
  });

  it('refuses a config that cannot work before anything runs', () => {
    const invokeModel = scriptedModel().invoke;
    expect(() => createAgent({ model: '' }, { invokeModel })).toThrow(AgentConfigError);
    expect(() => createAgent({ model: 'm', maxSteps: 0 }, { invokeModel })).toThrow(/maxSteps/);
    expect(() => createAgent({ model: 'm', maxOutputTokens: 1.5 }, { invokeModel })).toThrow(/maxOutputTokens/);
  });

  it('sends a ToolError message with is_error, and any other throw as "Internal error" after logging it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const boom = new Error('database password is hunter2');
    const picky = tool('picky', () => {
      throw new ToolError('title must not be empty');
    });
    const broken = tool('broken', () => {
      throw boom;
    });
    const model = scriptedModel(call({ name: 'picky', id: 'p' }, { name: 'broken', id: 'b' }), say('sorry'));
    const agent = createAgent({ model: 'm', tools: [picky, broken] }, { invokeModel: model.invoke });
    const events = record(agent);

    const snapshot = await agent.submit('try');

    expect(snapshot.status).toBe('settled');
    expect(model.requests[1].messages.at(-1)!.blocks).toEqual([
      { kind: 'tool_result', callId: 'p', content: 'title must not be empty', isError: true },
      { kind: 'tool_result', callId: 'b', content: 'Internal error', isError: true },
    ]);
    expect(events.filter((e) => e.kind === 'tool_finished')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ callId: 'p', isError: true, result: 'title must not be empty' }),
        expect.objectContaining({ callId: 'b', isError: true, result: 'Internal error' }),
      ]),
    );
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('"broken"'), boom);
  });

  it('sends a string result as it is, any other value as JSON, and undefined as an empty result', async () => {
    const text = tool('text', () => 'plain "text"');
    const object = tool('object', () => ({ ok: true, n: 2 }));
    const nothing = tool('nothing', () => undefined);
    const model = scriptedModel(call({ name: 'text', id: 't' }, { name: 'object', id: 'o' }, { name: 'nothing', id: 'n' }), say('done'));
    const agent = createAgent({ model: 'm', tools: [text, object, nothing] }, { invokeModel: model.invoke });
    const events = record(agent);

    await agent.submit('go');

    expect(model.requests[1].messages.at(-1)!.blocks).toEqual([
      { kind: 'tool_result', callId: 't', content: 'plain "text"' },
      { kind: 'tool_result', callId: 'o', content: '{"ok":true,"n":2}' },
      { kind: 'tool_result', callId: 'n', content: '' },
    ]);
    expect(events.find((e) => e.kind === 'tool_finished' && e.callId === 'o')).toMatchObject({
      result: { ok: true, n: 2 },
      isError: false,
    });
  });

  it('answers unknown tools and input that is not a JSON object with error results, and goes on', async () => {
    const runs: unknown[] = [];
    const echo = tool('echo', (input) => (runs.push(input), 'echoed'));
    const model = scriptedModel(
      call({ name: 'nope', id: 'u' }, { name: 'echo', input: '{"text": tru', id: 'j' }, { name: 'echo', input: { text: 'hi' }, id: 'ok' }),
      say('recovered'),
    );
    const agent = createAgent({ model: 'm', tools: [echo] }, { invokeModel: model.invoke });

    const snapshot = await agent.submit('go');

    expect(snapshot.status).toBe('settled');
    const [unknown, invalid, fine] = model.requests[1].messages.at(-1)!.blocks as Array<{ content: string; isError?: boolean }>;
    expect(unknown).toMatchObject({ isError: true, content: expect.stringContaining('Unknown tool "nope"') });
    expect(invalid).toMatchObject({ isError: true, content: expect.stringContaining('not valid JSON') });
    expect(fine).toMatchObject({ content: 'echoed' });
    expect(runs).toEqual([{ text: 'hi' }]);
  });

  it('ends with a max_steps fault, never a silent stop, when the model keeps calling tools', async () => {
    const ping = tool('ping', () => 'pong');
    const forever = () => call({ name: 'ping', id: `c${Math.random()}` });
    const model = scriptedModel(forever, forever, forever, forever);
    const agent = createAgent({ model: 'm', tools: [ping], maxSteps: 3 }, { invokeModel: model.invoke });
    const events = record(agent);

    const failure = await agent.submit('loop').catch((e: unknown) => e);

    expect(RunFault.isInstance(failure)).toBe(true);
    expect((failure as RunFault).kind).toBe('max_steps');
    expect(model.requests).toHaveLength(3);
    const faulted = events.at(-1);
    expect(faulted).toMatchObject({ kind: 'faulted', error: { kind: 'max_steps' } });
    // The last calls were answered: the history is consistent and the next submit can carry on.
    expect((faulted as { snapshot: { messages: Turn[] } }).snapshot.messages.at(-1)!.blocks[0]).toMatchObject({
      kind: 'tool_result',
      content: 'pong',
    });
    expect(DEFAULT_MAX_STEPS).toBe(64);
  });

  it('never mutates what it hands out: snapshots are copies and later runs do not change them', async () => {
    const model = scriptedModel(say('first'), say('second'));
    const agent = createAgent({ model: 'm' }, { invokeModel: model.invoke });

    const first = await agent.submit('one');
    const frozen = structuredClone(first.messages);
    await agent.submit('two');

    expect(first.messages).toEqual(frozen);
    expect(model.requests[1].messages).toHaveLength(3);
  });

  it('asks prepareStep before every model call, between the steps of one tool loop too, with the reply before it', async () => {
    const seen: Array<{ step: number; messages: number; inputTokens?: number; sentTurns?: number }> = [];
    const model = scriptedModel(call({ name: 't', id: '1' }), say('done'));
    const agent = createAgent(
      {
        model: 'm',
        tools: [tool('t', () => 'ok')],
        prepareStep: (step) => {
          seen.push({
            step: step.step,
            messages: step.messages.length,
            inputTokens: step.previous?.reply.usage?.inputTokens,
            sentTurns: step.previous?.sentTurns,
          });
        },
      },
      { invokeModel: model.invoke },
    );

    await agent.submit('go');

    expect(seen).toEqual([
      { step: 0, messages: 1, inputTokens: undefined, sentTurns: undefined },
      { step: 1, messages: 3, inputTokens: 10, sentTurns: 1 },
    ]);
  });

  it('sends what prepareStep overrides for that call only: system text, tools and controls', async () => {
    const model = scriptedModel(call({ name: 't', id: '1' }), say('done'));
    const agent = createAgent(
      {
        model: 'm',
        system: 'base',
        tools: [tool('t', () => 'ok'), tool('u', () => 'no')],
        prepareStep: ({ step, tools }) =>
          step === 0 ? { system: 'first call', temperature: 0.2, tools: tools.filter((t) => t.name === 't') } : undefined,
      },
      { invokeModel: model.invoke },
    );

    await agent.submit('go');

    expect(model.requests.map((r) => [r.system, r.temperature, r.tools.map((t) => t.name)])).toEqual([
      ['first call', 0.2, ['t']],
      ['base', undefined, ['t', 'u']],
    ]);
  });

  it('applies a condensation prepareStep returns, as a typed value, for this and later calls', async () => {
    const model = scriptedModel(say('a'), say('b'), say('c'));
    const summary: Turn = { role: 'user', blocks: [{ kind: 'text', text: 'talk so far' }] };
    const agent = createAgent(
      {
        model: 'm',
        prepareStep: ({ messages }) => (messages.length < 5 ? undefined : { compaction: { summary, keptFrom: messages.length - 1 } }),
      },
      { invokeModel: model.invoke },
    );

    await agent.submit('one');
    await agent.submit('two');
    const third = await agent.submit('three');

    // Nothing in the summary's text marks it: the value says what it is.
    expect(model.requests[2].messages.map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['talk so far', 'three']);
    expect(third.messages).toHaveLength(3);
  });

  it('faults with invalid_request, before any call, when prepareStep returns a condensation that cannot apply', async () => {
    const model = scriptedModel(say('never'));
    const summary: Turn = { role: 'user', blocks: [{ kind: 'text', text: 'x' }] };
    const agent = createAgent({ model: 'm', prepareStep: () => ({ compaction: { summary, keptFrom: 5 } }) }, { invokeModel: model.invoke });

    const failure = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('invalid_request');
    expect(model.requests).toHaveLength(0);
    expect(failure.snapshot.messages).toHaveLength(1);
  });

  it('refuses the old field name `condensation` with its new name, instead of ignoring it', async () => {
    const model = scriptedModel(say('never'));
    const summary: Turn = { role: 'user', blocks: [{ kind: 'text', text: 'x' }] };
    // A hook written against the old name (plain JS, or a cast): compaction is the one word since issue 37.
    const agent = createAgent(
      { model: 'm', prepareStep: () => ({ condensation: { summary, keptFrom: 0 } }) as never },
      { invokeModel: model.invoke },
    );

    const failure = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

    expect(failure).toMatchObject({ kind: 'invalid_request', cause: { name: 'StepHookError' } });
    expect((failure.cause as Error).message).toMatch(/`condensation`, which is now `compaction`/);
    expect(model.requests).toHaveLength(0);
  });
});
