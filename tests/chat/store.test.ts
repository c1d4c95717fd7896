import { describe, expect, it } from 'vitest';
import { AssistantBusyError, InvalidInputError, InvalidItemError, createAssistantStore } from '../../src/chat/index.js';
import { InvalidPartError, InvalidStreamError } from '../../src/parts/index.js';
import type { AssistantItem, AssistantStream, AssistantStreamInfo } from '../../src/chat/index.js';
import type { AgentPart } from '../../src/parts/index.js';
import { PartChannel, text, tool } from './channel.js';

type Call = { prompt: string; history: AssistantItem[]; info: AssistantStreamInfo };

/** A store whose every turn streams from a fresh channel the test drives. */
function setup(extra: { onPart?: (part: AgentPart) => void; onDone?: () => void; initialItems?: AssistantItem[] } = {}) {
  const calls: Call[] = [];
  const channels: PartChannel[] = [];
  const parts: AgentPart[] = [];
  let done = 0;
  const stream: AssistantStream = (prompt, history, info) => {
    calls.push({ prompt, history, info });
    const channel = new PartChannel();
    channels.push(channel);
    return channel;
  };
  const store = createAssistantStore({
    stream,
    onPart: (part) => {
      parts.push(part);
      extra.onPart?.(part);
    },
    onDone: () => {
      done++;
      extra.onDone?.();
    },
    initialItems: extra.initialItems,
  });
  return { store, calls, channels, parts, doneCount: () => done };
}

describe('AssistantStore: a turn', () => {
  it('starts empty and idle', () => {
    const { store } = setup();
    expect(store.getState()).toEqual({ items: [], input: '', busy: false, error: undefined });
  });

  it('send() trims the input, clears it, appends a user and an empty assistant item, and is busy until the stream ends', async () => {
    const { store, calls, channels, doneCount } = setup();
    store.setInput('  what notes do I have?  ');
    const sent = store.send();

    expect(store.getState().input).toBe('');
    expect(store.getState().busy).toBe(true);
    expect(store.getState().items).toEqual([
      { role: 'user', text: 'what notes do I have?' },
      { role: 'assistant', parts: [] },
    ]);
    expect(calls[0].prompt).toBe('what notes do I have?');
    expect(calls[0].info.spoken).toBe(false);

    channels[0].end();
    await sent;
    expect(store.getState().busy).toBe(false);
    expect(doneCount()).toBe(1);
  });

  it('joins consecutive text parts into one, and appends tool, context and memory parts in order', async () => {
    const { store, channels, parts } = setup();
    store.setInput('hi');
    const sent = store.send();
    const context: AgentPart = { type: 'context', source: 'memory', op: 'recalled', records: [] };
    const memory: AgentPart = { type: 'memory', op: 'saved', records: [] };
    channels[0].push(context, text('Let me '), text('look.'), tool('c1'), text('You have '), text('one note.'), memory);
    channels[0].end();
    await sent;

    expect(store.getState().items[1]).toEqual({
      role: 'assistant',
      parts: [context, text('Let me look.'), tool('c1'), text('You have one note.'), memory],
    });
    // onPart sees every part as it arrived, not the joined ones.
    expect(parts).toHaveLength(7);
    expect(parts[1]).toEqual(text('Let me '));
  });

  it('fills the assistant item as parts arrive, with a new snapshot for every change', async () => {
    const { store, channels } = setup();
    store.setInput('hi');
    const sent = store.send();
    const before = store.getState();
    expect(store.getState()).toBe(before); // stable identity while nothing changes

    channels[0].push(text('Hel'));
    await channels[0].pulled(2);
    const middle = store.getState();
    expect(middle).not.toBe(before);
    expect(middle.items[1]).toEqual({ role: 'assistant', parts: [text('Hel')] });
    expect(before.items[1]).toEqual({ role: 'assistant', parts: [] }); // old snapshots never change

    channels[0].push(text('lo'));
    await channels[0].pulled(3);
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('Hello')] });
    expect(middle.items[1]).toEqual({ role: 'assistant', parts: [text('Hel')] });
    channels[0].end();
    await sent;
  });

  it('passes the thread before the turn as history, and each turn continues the thread', async () => {
    const { store, calls, channels } = setup();
    store.setInput('first');
    const first = store.send();
    channels[0].push(text('one'));
    channels[0].end();
    await first;

    store.setInput('second');
    const second = store.send();
    expect(calls[0].history).toEqual([]);
    expect(calls[1].history).toEqual([
      { role: 'user', text: 'first' },
      { role: 'assistant', parts: [text('one')] },
    ]);
    channels[1].push(text('two'));
    channels[1].end();
    await second;
    expect(store.getState().items.map((i) => (i.role === 'user' ? i.text : i.parts))).toEqual([
      'first',
      [text('one')],
      'second',
      [text('two')],
    ]);
  });

  it('ignores empty or blank input without calling stream', async () => {
    const { store, calls } = setup();
    await store.send();
    store.setInput('   \n\t ');
    await store.send();
    await store.send('   ');
    expect(calls).toHaveLength(0);
    expect(store.getState().items).toEqual([]);
    expect(store.getState().input).toBe('   \n\t ');
  });

  it('ignores send() while a turn is running, keeping the typed input', async () => {
    const { store, calls, channels } = setup();
    store.setInput('first');
    const first = store.send();
    store.setInput('too soon');
    await store.send();
    await store.send('spoken too soon');
    expect(calls).toHaveLength(1);
    expect(store.getState().input).toBe('too soon');
    expect(store.getState().items).toHaveLength(2);
    channels[0].end();
    await first;
  });

  it('send(override) sends the override, marks the user item and the stream call spoken, and leaves the input box alone', async () => {
    const { store, calls, channels } = setup();
    store.setInput('half-typed');
    const sent = store.send('  turn the lights on ');
    expect(store.getState().items[0]).toEqual({ role: 'user', text: 'turn the lights on', spoken: true });
    expect(calls[0].prompt).toBe('turn the lights on');
    expect(calls[0].info.spoken).toBe(true);
    expect(store.getState().input).toBe('half-typed');
    channels[0].end();
    await sent;
  });

  it('refuses a non-string override (a click event from onClick={send}) with a typed error and changes nothing', async () => {
    const { store, calls } = setup();
    store.setInput('hello');
    const error = await store.send({ type: 'click' } as unknown as string).catch((e: unknown) => e);
    expect(InvalidInputError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/onClick=\{\(\) => send\(\)\}/);
    expect(calls).toHaveLength(0);
    expect(store.getState().input).toBe('hello');
    expect(() => store.setInput({ target: {} } as unknown as string)).toThrow(InvalidInputError);
  });
});

describe('AssistantStore: a failing turn', () => {
  const boom = new Error('model unavailable');

  it.each([
    [
      'throws synchronously',
      (() => {
        throw boom;
      }) as AssistantStream,
    ],
    [
      'returns a rejected promise',
      (async () => {
        throw boom;
      }) as AssistantStream,
    ],
  ])('when stream %s: busy resets, onDone runs, send rejects with the error', async (_, stream) => {
    let done = 0;
    const store = createAssistantStore({ stream, onDone: () => done++ });
    store.setInput('hi');
    await expect(store.send()).rejects.toBe(boom);
    expect(store.getState().busy).toBe(false);
    expect(store.getState().error).toBe(boom);
    expect(done).toBe(1);
    expect(store.getState().items).toEqual([
      { role: 'user', text: 'hi' },
      { role: 'assistant', parts: [] },
    ]);
  });

  it('when the iterable fails mid-turn: the parts already received stay, and the next turn clears the error', async () => {
    const { store, channels, doneCount } = setup();
    store.setInput('hi');
    const sent = store.send();
    channels[0].push(text('partial'));
    channels[0].fail(boom);
    await expect(sent).rejects.toBe(boom);
    expect(store.getState()).toMatchObject({ busy: false, error: boom });
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('partial')] });
    expect(doneCount()).toBe(1);

    store.setInput('again');
    const next = store.send();
    expect(store.getState().error).toBeUndefined();
    channels[1].end();
    await next;
  });

  it('rejects a stream that does not return an async iterable with InvalidStreamError', async () => {
    const store = createAssistantStore({ stream: (() => [text('sync array')]) as unknown as AssistantStream });
    store.setInput('hi');
    const error = await store.send().catch((e: unknown) => e);
    expect(InvalidStreamError.isInstance(error)).toBe(true);
    expect(store.getState().busy).toBe(false);
  });

  it('fails the turn with InvalidPartError on something that is not a part, keeps what came before, and closes the stream', async () => {
    const { store, channels } = setup();
    store.setInput('hi');
    const sent = store.send();
    channels[0].push(text('ok'), { type: 'tool', name: 'x' } as unknown as AgentPart, text('never applied'));
    const error = await sent.catch((e: unknown) => e);
    expect(InvalidPartError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/callId/);
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('ok')] });
    expect(channels[0].closedEarly).toBe(true);
  });

  it('fails the turn when onPart throws, and closes the stream', async () => {
    const bad = new Error('render bug');
    const { store, channels } = setup({
      onPart: () => {
        throw bad;
      },
    });
    store.setInput('hi');
    const sent = store.send();
    channels[0].push(text('a'), text('b'));
    await expect(sent).rejects.toBe(bad);
    expect(channels[0].closedEarly).toBe(true);
    expect(store.getState().busy).toBe(false);
  });

  it('reports both errors when the stream fails and onDone throws too', async () => {
    const late = new Error('onDone bug');
    const { store, channels } = setup({
      onDone: () => {
        throw late;
      },
    });
    store.setInput('hi');
    const sent = store.send();
    channels[0].fail(boom);
    const error = await sent.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual([boom, late]);
    expect(store.getState().busy).toBe(false);
  });
});

describe('AssistantStore: reset and stop', () => {
  it('reset() clears the thread without stopping the turn: busy stays, onPart still runs, the cleared thread stays empty', async () => {
    const { store, channels, parts, doneCount, calls } = setup();
    store.setInput('hi');
    const sent = store.send();
    channels[0].push(text('before'));
    await channels[0].pulled(2);

    store.reset();
    expect(store.getState().items).toEqual([]);
    expect(store.getState().busy).toBe(true);
    expect(calls[0].info.signal?.aborted).toBe(false);

    store.setInput('while running');
    await store.send();
    expect(calls).toHaveLength(1); // still a turn in progress

    channels[0].push(text('after'));
    channels[0].end();
    await sent;
    expect(parts).toEqual([text('before'), text('after')]);
    expect(store.getState().items).toEqual([]);
    expect(store.getState().busy).toBe(false);
    expect(doneCount()).toBe(1);
    expect(channels[0].closedEarly).toBe(false);
  });

  it('stop() ends the turn at once: the signal fires, busy resets, onDone runs, send resolves and later parts are dropped', async () => {
    const { store, calls, channels, parts, doneCount } = setup();
    store.setInput('hi');
    const sent = store.send();
    channels[0].push(text('kept'));
    await channels[0].pulled(2);

    store.stop();
    await sent;
    expect(calls[0].info.signal?.aborted).toBe(true);
    expect(store.getState()).toMatchObject({ busy: false, error: undefined });
    expect(doneCount()).toBe(1);

    // A stream that ignores its signal is closed at its next part, which is not applied.
    channels[0].push(text('dropped'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(channels[0].closedEarly).toBe(true);
    expect(parts).toEqual([text('kept')]);
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('kept')] });
  });

  it('stop() treats the abort error a well-behaved stream throws as the end of the turn, not a failure', async () => {
    const store = createAssistantStore({
      stream: (_p, _h, { signal }) =>
        (async function* () {
          yield text('working');
          await new Promise((_, reject) => signal!.addEventListener('abort', () => reject(signal!.reason)));
        })(),
    });
    store.setInput('hi');
    const sent = store.send();
    await new Promise((resolve) => setImmediate(resolve));
    store.stop();
    await expect(sent).resolves.toBeUndefined();
    expect(store.getState().error).toBeUndefined();
  });

  it('a new turn can start right after stop()', async () => {
    const { store, calls, channels } = setup();
    store.setInput('one');
    void store.send();
    store.stop();
    await new Promise((resolve) => setImmediate(resolve));
    store.setInput('two');
    const second = store.send();
    expect(calls).toHaveLength(2);
    channels[1].push(text('fresh'));
    channels[1].end();
    await second;
    expect(store.getState().items.at(-1)).toEqual({ role: 'assistant', parts: [text('fresh')] });
  });
});

describe('AssistantStore: approvals (tool parts updated by callId)', () => {
  const pending = tool('call-7', {
    name: 'notes.delete',
    input: { id: 3 },
    result: { status: 'pending_approval', actionId: 'call-7' },
    approvalId: 'call-7',
  });
  const executed = tool('call-7', { name: 'notes.delete', input: { id: 3 }, result: { deleted: 3 } });

  async function pendingThread() {
    const ctx = setup();
    ctx.store.setInput('delete note 3');
    const sent = ctx.store.send();
    ctx.channels[0].push(text('Deleting.'), pending);
    ctx.channels[0].end();
    await sent;
    return ctx;
  }

  it('a later tool part with the same callId replaces the earlier one in place, within a turn', async () => {
    const { store, channels } = setup();
    store.setInput('go');
    const sent = store.send();
    channels[0].push(pending, text('Waiting for approval... '), executed, text('done.'));
    channels[0].end();
    await sent;
    expect(store.getState().items[1]).toEqual({
      role: 'assistant',
      parts: [executed, text('Waiting for approval... done.')],
    });
  });

  it('applyPart() puts the executed result an approve endpoint returned in place of the pending part', async () => {
    const { store, parts } = await pendingThread();
    store.applyPart(executed);
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('Deleting.'), executed] });
    expect(parts.at(-1)).toBe(executed);
  });

  it('follow() continues the last assistant item with the rest of the run, updating the tool part and adding text', async () => {
    const { store, doneCount } = await pendingThread();
    const continuation = new PartChannel();
    let seenHistory: AssistantItem[] = [];
    const followed = store.follow((history) => {
      seenHistory = history;
      return continuation;
    });
    expect(store.getState().busy).toBe(true);
    expect(seenHistory).toHaveLength(2);
    continuation.push(executed, text('Note 3 is gone.'));
    continuation.end();
    await followed;

    expect(store.getState().items).toEqual([
      { role: 'user', text: 'delete note 3' },
      { role: 'assistant', parts: [text('Deleting.'), executed, text('Note 3 is gone.')] },
    ]);
    expect(doneCount()).toBe(2);
    expect(store.getState().busy).toBe(false);
  });

  it('updates a tool part in an earlier item when a later turn reports it', async () => {
    const { store, channels } = await pendingThread();
    store.setInput('approve it');
    const sent = store.send();
    channels[1].push(executed, text('Done.'));
    channels[1].end();
    await sent;
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('Deleting.'), executed] });
    expect(store.getState().items[3]).toEqual({ role: 'assistant', parts: [text('Done.')] });
  });

  it('follow() refuses to run beside a running turn, and applyPart() refuses what is not a part', async () => {
    const { store, channels } = setup();
    store.setInput('go');
    const sent = store.send();
    const error = await store.follow(() => new PartChannel()).catch((e: unknown) => e);
    expect(AssistantBusyError.isInstance(error)).toBe(true);
    expect(() => store.applyPart({ type: 'image' } as unknown as AgentPart)).toThrow(InvalidPartError);
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [] });
    channels[0].end();
    await sent;
  });

  it('applyPart() with no assistant item to extend starts one', () => {
    const { store } = setup({ initialItems: [{ role: 'user', text: 'hello' }] });
    store.applyPart(text('hi there'));
    expect(store.getState().items).toEqual([
      { role: 'user', text: 'hello' },
      { role: 'assistant', parts: [text('hi there')] },
    ]);
  });
});

describe('AssistantStore: construction and subscribers', () => {
  it('starts from initialItems, and refuses a malformed thread with InvalidItemError', () => {
    const initialItems: AssistantItem[] = [
      { role: 'user', text: 'hi' },
      { role: 'assistant', parts: [text('hello')] },
    ];
    expect(setup({ initialItems }).store.getState().items).toEqual(initialItems);
    expect(() => setup({ initialItems: [{ role: 'system', text: 'x' }] as unknown as AssistantItem[] })).toThrow(InvalidItemError);
    expect(() => setup({ initialItems: [{ role: 'assistant', parts: [{ type: 'text' }] }] as unknown as AssistantItem[] })).toThrow(
      /Item 0/,
    );
    expect(() => createAssistantStore({} as never)).toThrow(InvalidStreamError);
  });

  it('notifies subscribers on every change until they unsubscribe', async () => {
    const { store, channels } = setup();
    let calls = 0;
    const off = store.subscribe(() => calls++);
    store.setInput('hi');
    store.setInput('hi'); // no change, no notification
    expect(calls).toBe(1);
    const sent = store.send();
    expect(calls).toBe(2);
    channels[0].push(text('a'));
    await channels[0].pulled(2);
    expect(calls).toBe(3);
    off();
    channels[0].end();
    await sent;
    expect(calls).toBe(3);
  });

  it('a throwing subscriber neither breaks the turn nor keeps other subscribers from being told', async () => {
    const reported: unknown[] = [];
    const channel = new PartChannel();
    const store = createAssistantStore({ stream: () => channel, onListenerError: (e) => reported.push(e) });
    const broken = new Error('listener bug');
    store.subscribe(() => {
      throw broken;
    });
    let heard = 0;
    store.subscribe(() => heard++);
    store.setInput('hi');
    const sent = store.send();
    channel.push(text('ok'));
    channel.end();
    await sent;
    expect(store.getState().items[1]).toEqual({ role: 'assistant', parts: [text('ok')] });
    expect(heard).toBe(reported.length);
    expect(reported.every((e) => e === broken)).toBe(true);
    expect(heard).toBeGreaterThanOrEqual(4);
  });
});
