import { useCallback, useEffect, useState } from 'react';
import { Chat } from './Chat.js';
import { forget, listConversations, loadThread, startConversation, type Conversation, type Thread } from './api.js';

/** The conversation the address names (`#c=<id>`); null for the browser's first. */
const named = (): string | null => new URLSearchParams(location.hash.slice(1)).get('c');

/**
 * The conversation list beside the chat. The chat mounts once its thread is restored from the
 * server, so a reload shows the conversation; switching conversations changes the address, so the
 * back button and a reload keep the one on screen.
 */
export function App() {
  const [conversation, setConversation] = useState(named);
  const [thread, setThread] = useState<Thread | { error: string } | null>(null);
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [listError, setListError] = useState<string | null>(null);

  const relist = useCallback(() => {
    listConversations().then(
      (list) => (setConversations(list), setListError(null)),
      (error: unknown) => setListError((error as Error).message),
    );
  }, []);
  useEffect(() => {
    const follow = () => setConversation(named());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    setThread(null);
    // The thread first: a new browser's first call is the one that starts its session.
    loadThread(conversation).then(
      (loaded) => (setThread(loaded), relist()),
      (error: unknown) => setThread({ error: (error as Error).message }),
    );
  }, [conversation, relist]);

  const open = (id: string) => {
    forget(id);
    location.hash = `c=${id}`;
  };
  const current = thread !== null && !('error' in thread) ? thread.conversation : null;
  const listed =
    current !== null && !conversations.some((c) => c.id === current)
      ? [{ id: current, title: null, modifiedAt: '' }, ...conversations]
      : conversations;

  return (
    <div className="app">
      <nav aria-label="Conversations">
        <button
          type="button"
          onClick={() => void startConversation().then(open, (error: unknown) => setListError((error as Error).message))}
        >
          New conversation
        </button>
        <ul>
          {listed.map((c) => (
            <li key={c.id}>
              <a
                href={`#c=${c.id}`}
                aria-current={c.id === current ? 'page' : undefined}
                onClick={(e) => {
                  e.preventDefault();
                  if (c.id !== current) open(c.id);
                }}
              >
                {c.title ?? 'New conversation'}
              </a>
            </li>
          ))}
        </ul>
        {listError !== null && <p className="fault">{listError}</p>}
      </nav>
      {thread === null ? (
        <p className="loading">Loading the conversation…</p>
      ) : 'error' in thread ? (
        <p className="fault">{thread.error}</p>
      ) : (
        <Chat key={thread.conversation} thread={thread} onTurnEnd={relist} />
      )}
    </div>
  );
}
