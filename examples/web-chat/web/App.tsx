import { useEffect, useState } from 'react';
import type { AssistantItem } from '../../../src/react/index.js';
import { Chat } from './Chat.js';
import { loadThread } from './api.js';

/** Restores the thread from the server before the chat mounts, so a reload shows the conversation. */
export function App() {
  const [thread, setThread] = useState<{ items: AssistantItem[] } | { error: string } | null>(null);
  useEffect(() => {
    loadThread().then(
      (items) => setThread({ items }),
      (error: unknown) => setThread({ error: (error as Error).message }),
    );
  }, []);
  if (thread === null) return <p>Loading the conversation…</p>;
  if ('error' in thread) return <p className="fault">{thread.error}</p>;
  return <Chat initialItems={thread.items} />;
}
