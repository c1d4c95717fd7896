// Every call the page makes to its server, in one place: the thread and the conversation list as JSON,
// the chat itself as the AI SDK's UI message stream `useChat` reads. A server that speaks the same
// (the project's agent server, later) replaces this file's paths and nothing else.
import { DefaultChatTransport } from 'ai';
import type { UIMessage } from 'ai';

/**
 * What the server says about a message beside its parts: the session node it starts at (what an
 * edit, a regenerate or a version switch names), its other versions, whether it can be edited (not a
 * conversation's first prompt), whether the user stopped it.
 */
export type MessageInfo = { node?: string; versions?: { index: number; ids: string[] }; editable?: boolean; stopped?: boolean };

export type ChatMessage = UIMessage<MessageInfo>;

/** A conversation as the server has it: its id, its live path as messages, and what the session store could not read. */
export type Thread = { conversation: string; messages: ChatMessage[]; problems: string[] };

/** One of this browser's conversations; `title` is its name, or its first prompt (null before it has one). */
export type Conversation = { id: string; title: string | null; modifiedAt: string };

/** A request the server refused, with the `kind` and message it answered. */
export class ServerRefusal extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
    this.name = 'ServerRefusal';
  }
}

/** `fetch`, with a refusal (`{ kind, message }`, or any failed response) thrown as a `ServerRefusal` the page can show. */
async function call(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let refusal: { kind?: unknown; message?: unknown } = {};
  try {
    refusal = JSON.parse(text) as typeof refusal;
  } catch {
    // Not the server's JSON (a proxy's error page, say): the status says what happened.
  }
  const message = typeof refusal.message === 'string' ? refusal.message : `The server answered ${response.status}.`;
  throw new ServerRefusal(response.status, typeof refusal.kind === 'string' ? refusal.kind : 'http_error', message);
}

const postJson = (path: string, body: unknown) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const threads = new Map<string, Promise<Thread>>();

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
    loading = call(`/api/thread${query}`).then((response) => response.json() as Promise<Thread>);
    threads.set(key, loading);
    loading.catch(() => threads.delete(key));
  }
  return loading;
}

export function forget(conversation: string | null): void {
  threads.delete(conversation ?? '');
}

/** The thread afresh, e.g. once a reply ended: the server gives its messages their node ids and versions. */
export async function reloadThread(conversation: string): Promise<Thread> {
  forget(conversation);
  return loadThread(conversation);
}

export async function listConversations(): Promise<Conversation[]> {
  return ((await (await call('/api/conversations')).json()) as { conversations: Conversation[] }).conversations;
}

export async function startConversation(): Promise<string> {
  return ((await (await postJson('/api/conversations', {})).json()) as { id: string }).id;
}

export async function renameConversation(conversation: string, title: string): Promise<string> {
  return ((await (await postJson('/api/conversations/rename', { conversation, title })).json()) as { title: string }).title;
}

export async function deleteConversation(conversation: string): Promise<void> {
  await postJson('/api/conversations/delete', { conversation });
}

/** Shows another version of a message (`versions.ids`): the session moves to that branch. */
export async function showVersion(conversation: string, message: string): Promise<Thread> {
  return (await (await postJson('/api/branch', { conversation, message })).json()) as Thread;
}

/**
 * `useChat`'s transport for a conversation. The server's session already holds the thread, so only
 * the last message travels, with what `useChat` says about it (`trigger`, and `messageId` for a
 * regenerate or an edit); `id` names the conversation.
 */
export function chatTransport(): DefaultChatTransport<ChatMessage> {
  return new DefaultChatTransport<ChatMessage>({
    api: '/api/chat',
    fetch: call,
    prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => ({
      body: { id, messages: messages.slice(-1), trigger, ...(messageId !== undefined && { messageId }) },
    }),
  });
}
