import { fetchParts } from 'indusagi/chat';
import type { AssistantItem, AssistantStream, ContinuationStream } from 'indusagi/chat';

/**
 * A conversation as the server has it: its id, the thread, which of its replies were stopped, and what the
 * session store could not read.
 */
export type Thread = { conversation: string; items: AssistantItem[]; stopped: number[]; problems: string[] };

/** One of this browser's conversations; `title` is its first prompt (null before it has one). */
export type Conversation = { id: string; title: string | null; modifiedAt: string };

const threads = new Map<string, Promise<Thread>>();

async function json<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what} failed with HTTP ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/**
 * A conversation so far (`null`: the browser's first), as the server's session store has it. Asked
 * once however often it is called (StrictMode runs effects twice): a browser's first thread request
 * starts its session, and two at once would start two, the later cookie winning. `forget` before
 * showing a conversation again, so it is read afresh.
 */
export function loadThread(conversation: string | null): Promise<Thread> {
  const key = conversation ?? '';
  let loading = threads.get(key);
  if (loading === undefined) {
    const query = conversation === null ? '' : `?conversation=${encodeURIComponent(conversation)}`;
    loading = fetch(`/api/thread${query}`).then((response) => json<Thread>(response, 'Loading the thread'));
    threads.set(key, loading);
  }
  return loading;
}

export function forget(conversation: string | null): void {
  threads.delete(conversation ?? '');
}

export async function listConversations(): Promise<Conversation[]> {
  return (await json<{ conversations: Conversation[] }>(await fetch('/api/conversations'), 'Listing the conversations')).conversations;
}

export async function startConversation(): Promise<string> {
  const response = await fetch('/api/conversations', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return (await json<{ id: string }>(response, 'Starting a conversation')).id;
}

// The server keeps the history in its session store, so only the prompt travels.
export function chatStream(conversation: string): AssistantStream {
  return (prompt, _history, { signal }) => fetchParts('/api/chat', { json: { prompt, conversation }, signal });
}

/** The rest of the run once the user decided on a waiting tool call. */
export function decision(conversation: string, approvalId: string, approved: boolean): ContinuationStream {
  return (_history, { signal }) => fetchParts('/api/approve', { json: { approvalId, approved, conversation }, signal });
}
