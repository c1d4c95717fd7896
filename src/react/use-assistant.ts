import { useEffect, useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { createAssistantStore } from '../chat/store.js';
import type { AssistantStore } from '../chat/store.js';
import type { AssistantItem, AssistantStoreOptions } from '../chat/types.js';

export type UseAssistantOptions = Omit<AssistantStoreOptions, 'onListenerError'>;

export type UseAssistant = {
  items: AssistantItem[];
  input: string;
  setInput: AssistantStore['setInput'];
  busy: boolean;
  /** Why the last turn failed (the same error `send` rejected with); cleared by the next turn or `reset()`. */
  error: unknown;
  send: AssistantStore['send'];
  reset: AssistantStore['reset'];
  stop: AssistantStore['stop'];
  follow: AssistantStore['follow'];
  applyPart: AssistantStore['applyPart'];
};

/**
 * Headless chat state over an `AgentPart` stream: a thin React adapter over `AssistantStore`. The
 * callbacks may change between renders; the latest ones are used. `initialItems` is read once, on mount.
 * Unmounting stops a running turn.
 */
export function useAssistant(options: UseAssistantOptions): UseAssistant {
  const latest = useRef(options);
  useLayoutEffect(() => {
    latest.current = options;
  });

  const [store] = useState(() =>
    createAssistantStore({
      stream: (prompt, history, info) => latest.current.stream(prompt, history, info),
      onPart: (part) => latest.current.onPart?.(part),
      onDone: () => latest.current.onDone?.(),
      initialItems: options.initialItems,
    }),
  );
  const state = useSyncExternalStore(store.subscribe, store.getState, store.getState);
  useEffect(() => store.stop, [store]);

  return useMemo(
    () => ({
      items: state.items,
      input: state.input,
      busy: state.busy,
      error: state.error,
      setInput: store.setInput,
      send: store.send,
      reset: store.reset,
      stop: store.stop,
      follow: store.follow,
      applyPart: store.applyPart,
    }),
    [state, store],
  );
}
