import type { AgentPart } from '../parts/types.js';
import type { AssistantItem, AssistantState, AssistantStoreOptions, AssistantUserItem, ContinuationStream } from './types.js';
import { AssistantBusyError, InvalidInputError } from './errors.js';
import { InvalidStreamError, describeValue } from '../parts/errors.js';
import { applyPartToThread, findToolPart } from './thread.js';
import { assertAgentPart } from '../parts/validate.js';
import { assertAssistantItems } from './validate.js';

type StartStream = (signal: AbortSignal) => AsyncIterable<AgentPart> | Promise<AsyncIterable<AgentPart>>;

type RunningTurn = {
  controller: AbortController;
  /** The `reset()` generation the turn started in; a turn from an older one no longer writes to the thread. */
  epoch: number;
  /** Index of the assistant item the turn fills. */
  target: number;
};

type Listener = { notify: () => void };

// The way an event listener's error is reported: it surfaces, but neither corrupts the store nor
// keeps the other listeners from hearing about the change.
const rethrowLater = (error: unknown): void => {
  queueMicrotask(() => {
    throw error;
  });
};

/**
 * The framework-free chat state machine behind `useAssistant`: the thread, the input box and the
 * running turn. Subscribe to it from any UI layer; `getState()` returns an immutable snapshot that
 * changes identity on every change.
 */
export class AssistantStore {
  private state: AssistantState;
  private listeners: Listener[] = [];
  private turn: RunningTurn | null = null;
  private epoch = 0;
  private readonly options: AssistantStoreOptions;
  private readonly onListenerError: (error: unknown) => void;

  constructor(options: AssistantStoreOptions) {
    if (typeof options?.stream !== 'function') {
      throw new InvalidStreamError(`The "stream" option must be a function; got ${describeValue(options?.stream)}.`);
    }
    const items = options.initialItems ?? [];
    assertAssistantItems(items);
    this.options = options;
    this.onListenerError = options.onListenerError ?? rethrowLater;
    this.state = { items: items.slice(), input: '', busy: false, error: undefined };
  }

  readonly getState = (): AssistantState => this.state;

  /** Calls `listener` after every change; the returned function unsubscribes it. */
  readonly subscribe = (listener: () => void): (() => void) => {
    const entry: Listener = { notify: listener };
    this.listeners = [...this.listeners, entry];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== entry);
    };
  };

  readonly setInput = (input: string): void => {
    if (typeof input !== 'string') {
      throw new InvalidInputError('setInput', input, 'Wire inputs as onChange={(e) => setInput(e.target.value)}.');
    }
    if (input !== this.state.input) this.update({ input });
  };

  /**
   * Starts a turn with the trimmed input (or `override`, which marks the user item `spoken` and leaves
   * the input box alone). Does nothing if the text is empty or a turn is running. Rejects with the
   * stream's error if it fails.
   */
  readonly send = (override?: string): Promise<void> => {
    if (override !== undefined && typeof override !== 'string') {
      return Promise.reject(
        new InvalidInputError('send(override)', override, 'Wire buttons as onClick={() => send()}, not onClick={send}.'),
      );
    }
    if (this.turn) return Promise.resolve();
    const spoken = override !== undefined;
    const prompt = (spoken ? override : this.state.input).trim();
    if (prompt === '') return Promise.resolve();

    const history = this.state.items;
    const user: AssistantUserItem = spoken ? { role: 'user', text: prompt, spoken: true } : { role: 'user', text: prompt };
    const items: AssistantItem[] = [...history, user, { role: 'assistant', parts: [] }];
    const { stream } = this.options;
    return this.run((signal) => stream(prompt, history.slice(), { spoken, signal }), items, spoken ? this.state.input : '');
  };

  /**
   * Streams parts into the thread without a new user message, e.g. the rest of a run after a tool call
   * was approved. Parts go to the last assistant item (a new one if the thread ends with a user item);
   * tool parts replace the part with the same `callId`. Rejects with `AssistantBusyError` while a turn runs.
   */
  readonly follow = (stream: ContinuationStream): Promise<void> => {
    if (typeof stream !== 'function') {
      return Promise.reject(new InvalidStreamError(`follow(stream) takes a function; got ${describeValue(stream)}.`));
    }
    if (this.turn) return Promise.reject(new AssistantBusyError());
    const history = this.state.items;
    const endsWithReply = history[history.length - 1]?.role === 'assistant';
    const items: AssistantItem[] = endsWithReply ? history : [...history, { role: 'assistant', parts: [] }];
    return this.run((signal) => stream(history.slice(), { signal }), items, this.state.input);
  };

  /**
   * Puts one part into the thread by the same rules as a streamed one, e.g. the executed tool part an
   * approve endpoint returned. Throws `InvalidPartError` for anything that is not an `AgentPart`.
   */
  readonly applyPart = (part: AgentPart): void => {
    assertAgentPart(part);
    let items = this.state.items;
    let target: number;
    if (this.turn && this.turn.epoch === this.epoch) {
      target = this.turn.target;
    } else if (items[items.length - 1]?.role === 'assistant' || (part.type === 'tool' && findToolPart(items, part.callId))) {
      target = items.length - 1;
    } else {
      items = [...items, { role: 'assistant', parts: [] }];
      target = items.length - 1;
    }
    this.update({ items: applyPartToThread(items, target, part) });
    this.options.onPart?.(part);
  };

  /**
   * Ends the running turn now: `busy` resets, `onDone` runs and the turn's promise resolves. The stream's
   * `signal` fires; whatever the stream yields or throws afterwards is ignored, since it was told to stop.
   */
  readonly stop = (): void => {
    this.turn?.controller.abort();
  };

  /** Clears the thread. A running turn keeps running (and keeps `busy`), but no longer writes to the thread. */
  readonly reset = (): void => {
    this.epoch++;
    this.update({ items: [], error: undefined });
  };

  private async run(start: StartStream, items: AssistantItem[], input: string): Promise<void> {
    const controller = new AbortController();
    const turn: RunningTurn = { controller, epoch: this.epoch, target: items.length - 1 };
    this.turn = turn;
    this.update({ items, input, busy: true, error: undefined });

    const stopped = new Promise<null>((resolve) => controller.signal.addEventListener('abort', () => resolve(null), { once: true }));
    const failure = await Promise.race([this.consume(start, turn), stopped]);

    this.turn = null;
    this.update({ busy: false, error: failure?.error });
    const errors = failure ? [failure.error] : [];
    try {
      this.options.onDone?.();
    } catch (error) {
      errors.push(error);
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, 'The turn failed and onDone threw as well.');
  }

  /** Reads the stream into the thread. Never rejects: a failure comes back as a value so `run` can settle it. */
  private async consume(start: StartStream, turn: RunningTurn): Promise<{ error: unknown } | null> {
    const { signal } = turn.controller;
    try {
      const iterable = await start(signal);
      if (!isAsyncIterable(iterable)) {
        throw new InvalidStreamError(
          `stream must return an AsyncIterable of AgentParts (or a promise of one); it returned ${describeValue(iterable)}.`,
        );
      }
      for await (const part of iterable) {
        if (signal.aborted) break;
        assertAgentPart(part);
        if (turn.epoch === this.epoch) this.update({ items: applyPartToThread(this.state.items, turn.target, part) });
        this.options.onPart?.(part);
      }
      return null;
    } catch (error) {
      // After stop() the stream is expected to end by throwing: fetch and runAgent reject once their signal fires.
      return signal.aborted ? null : { error };
    }
  }

  private update(patch: Partial<AssistantState>): void {
    this.state = { ...this.state, ...patch };
    for (const listener of this.listeners) {
      try {
        listener.notify();
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<AgentPart> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
}

/** Creates the chat state machine; see `AssistantStore`. */
export function createAssistantStore(options: AssistantStoreOptions): AssistantStore {
  return new AssistantStore(options);
}
