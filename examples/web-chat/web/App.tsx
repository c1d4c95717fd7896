import { useEffect, useState } from 'react';
import { Chat } from './Chat.js';
import { loadThread, type Thread } from './api.js';

/** Restores the thread from the server before the chat mounts, so a reload shows the conversation. */
export function App() {
  const [thread, setThread] = useState<Thread | { error: string } | null>(null);
  useEffect(() => {
    loadThread().then(setThread, (error: unknown) => setThread({ error: (error as Error).message }));
  }, []);
  if (thread === null) return <p className="loading">Loading the conversation…</p>;
  if ('error' in thread) return <p className="fault">{thread.error}</p>;
  return <Chat thread={thread} />;
}
