import { useCallback, useEffect, useState } from 'react';
import { Chat } from './Chat.js';
import {
  deleteConversation,
  forget,
  listConversations,
  loadThread,
  renameConversation,
  newConversationId,
  type Conversation,
  type Thread,
} from './api.js';
import { Icon } from './icons.js';

/** The conversation the address names (`#c=<id>`); null for the browser's newest. */
const named = (): string | null => new URLSearchParams(location.hash.slice(1)).get('c');

/**
 * The conversation list beside the chat (a drawer on a phone). The chat mounts once its thread is
 * restored from the server, so a reload shows the conversation; switching conversations changes the
 * address, so the back button and a reload keep the one on screen.
 */
export function App() {
  const [conversation, setConversation] = useState(named);
  const [thread, setThread] = useState<Thread | { error: string } | null>(null);
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [listError, setListError] = useState<string | null>(null);
  const [drawer, setDrawer] = useState(false);

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
    loadThread(conversation).then(
      (loaded) => (setThread(loaded), relist()),
      (error: unknown) => setThread({ error: (error as Error).message }),
    );
  }, [conversation, relist]);

  const open = (id: string) => {
    forget(id);
    setDrawer(false);
    location.hash = `c=${id}`;
  };
  const startNew = () => open(newConversationId());
  const current = thread !== null && !('error' in thread) ? thread.conversation : null;
  const listed =
    current !== null && !conversations.some((c) => c.id === current)
      ? [{ id: current, title: null, modifiedAt: '' }, ...conversations]
      : conversations;
  const title = listed.find((c) => c.id === current)?.title ?? 'New conversation';

  return (
    <div className={`app${drawer ? ' drawer-open' : ''}`}>
      <nav id="conversations" aria-label="Conversations">
        <div className="nav-head">
          <span className="brand">indusagi chat</span>
          <button
            type="button"
            className="icon-button close-drawer"
            aria-label="Close the conversation list"
            onClick={() => setDrawer(false)}
          >
            <Icon name="close" />
          </button>
        </div>
        <button type="button" className="new-conversation" onClick={startNew}>
          <Icon name="plus" />
          New conversation
        </button>
        <ul>
          {listed.map((c) => (
            <ConversationItem
              key={c.id}
              conversation={c}
              current={c.id === current}
              open={() => open(c.id)}
              rename={(name) => renameConversation(c.id, name).then(relist)}
              remove={() =>
                deleteConversation(c.id).then(() => {
                  relist();
                  if (c.id !== current) return;
                  const next = conversations.find((other) => other.id !== c.id);
                  if (next !== undefined) open(next.id);
                  else startNew();
                })
              }
            />
          ))}
        </ul>
        {listError !== null && (
          <p className="fault" role="alert">
            {listError}
          </p>
        )}
      </nav>
      {drawer && <div className="scrim" aria-hidden="true" onClick={() => setDrawer(false)} />}
      <main>
        <header>
          <button
            type="button"
            className="icon-button open-drawer"
            aria-label="Conversations"
            aria-controls="conversations"
            aria-expanded={drawer}
            onClick={() => setDrawer(true)}
          >
            <Icon name="menu" />
          </button>
          <h1>{thread === null || 'error' in thread ? 'indusagi chat' : title}</h1>
        </header>
        {thread === null ? (
          <p className="loading">Loading the conversation…</p>
        ) : 'error' in thread ? (
          <p className="fault" role="alert">
            {thread.error}
          </p>
        ) : (
          <Chat key={thread.conversation} thread={thread} onTurnEnd={relist} />
        )}
      </main>
    </div>
  );
}

/** A conversation in the list: its link, and Rename / Delete, each asking in place first. */
function ConversationItem({
  conversation,
  current,
  open,
  rename,
  remove,
}: {
  conversation: Conversation;
  current: boolean;
  open: () => void;
  rename: (name: string) => Promise<void>;
  remove: () => Promise<void>;
}) {
  const [mode, setMode] = useState<'show' | 'rename' | 'delete'>('show');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const title = conversation.title ?? 'New conversation';
  const run = (work: Promise<void>) =>
    work.then(
      () => (setMode('show'), setError(null)),
      (failure: unknown) => setError((failure as Error).message),
    );
  // A conversation the server has not stored yet (no prompt) has nothing to rename or delete.
  const stored = conversation.modifiedAt !== '';
  if (mode === 'rename') {
    return (
      <li className="conversation editing">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void run(rename(name));
          }}
        >
          <input
            aria-label="Conversation name"
            value={name}
            maxLength={200}
            autoFocus
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => e.key === 'Escape' && setMode('show')}
          />
          <div className="row">
            <button type="submit" className="primary" disabled={name.trim() === ''}>
              Save
            </button>
            <button type="button" onClick={() => setMode('show')}>
              Cancel
            </button>
          </div>
        </form>
        {error !== null && <p className="fault">{error}</p>}
      </li>
    );
  }
  if (mode === 'delete') {
    return (
      <li className="conversation editing">
        <p>Delete “{title}”?</p>
        <div className="row">
          <button type="button" className="danger" onClick={() => void run(remove())}>
            Delete
          </button>
          <button type="button" onClick={() => setMode('show')}>
            Cancel
          </button>
        </div>
        {error !== null && <p className="fault">{error}</p>}
      </li>
    );
  }
  return (
    <li className="conversation">
      <a
        href={`#c=${conversation.id}`}
        aria-current={current ? 'page' : undefined}
        onClick={(e) => {
          e.preventDefault();
          if (!current) open();
        }}
      >
        {title}
      </a>
      {stored && (
        <span className="item-actions">
          <button
            type="button"
            className="icon-button"
            aria-label={`Rename ${title}`}
            title="Rename"
            onClick={() => (setName(title), setMode('rename'))}
          >
            <Icon name="edit" />
          </button>
          <button type="button" className="icon-button" aria-label={`Delete ${title}`} title="Delete" onClick={() => setMode('delete')}>
            <Icon name="trash" />
          </button>
        </span>
      )}
    </li>
  );
}
