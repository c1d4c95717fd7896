// Every call the page makes to its server, in one place. The server is indusagi's agent server
// (`indusagi/server`), mounted under /api by the example's start script: threads as JSON, the chat
// itself as the AI SDK's UI message stream `useChat` reads (POST /api/chat, resumed from
// GET /api/chat/{id}/stream). The browser's cookie says who it is: each browser is its own tenant.
import { DefaultChatTransport } from 'ai';
import type { UIMessage } from 'ai';
import type { AgentDataPart } from 'indusagi/ui-message';

/**
 * What the server says about a message beside its parts: the session node it starts at (also its id:
 * what an edit, a regenerate or a version switch names) and its other versions. `stopped`: a reply
 * whose run the user stopped, as far as it went (the server reads it back from the run's events).
 */
export type MessageInfo = { node?: string; versions?: { index: number; ids: string[] }; stopped?: boolean };

/** A sub-agent's progress arrives as `data-agent` parts (one per nested call, replaced as it changes; one per delta of its text, joined for showing). */
export type ChatMessage = UIMessage<MessageInfo, { agent: AgentDataPart }>;

/** A conversation: its id (the server's thread id), its live path as messages, and what the session store could not read. */
export type Thread = { conversation: string; messages: ChatMessage[]; problems: string[] };

/** One of this browser's conversations; `title` is its name (its first prompt until renamed), null before it has one. */
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

/** `fetch`, with a refusal (`{ error: { kind, message } }`, or any failed response) thrown as a `ServerRefusal` the page can show. */
async function call(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  let refusal: { kind?: unknown; message?: unknown } = {};
  try {
    refusal = (JSON.parse(text) as { error?: typeof refusal }).error ?? {};
  } catch {
    // Not the server's JSON (a proxy's error page, say): the status says what happened.
  }
  const message = typeof refusal.message === 'string' ? refusal.message : `The server answered ${response.status}.`;
  throw new ServerRefusal(response.status, typeof refusal.kind === 'string' ? refusal.kind : 'http_error', message);
}

const send = (method: string, path: string, body?: unknown) =>
  call(path, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });

type ServedThread = { id: string; metadata: { title?: unknown }; updatedAt: string; activeRunId: string | null };

const threads = new Map<string, Promise<Thread>>();

/**
 * A conversation so far (`null`: the browser's newest, or a new one when it has none), as the server
 * has it. Asked once however often it is called (StrictMode runs effects twice); `forget` before
 * showing a conversation again, so it is read afresh.
 */
export function loadThread(conversation: string | null): Promise<Thread> {
  const key = conversation ?? '';
  let loading = threads.get(key);
  if (loading === undefined) {
    loading = (async () => {
      const id = conversation ?? (await listConversations())[0]?.id ?? newConversationId();
      const response = await call(`/api/chat/${encodeURIComponent(id)}/messages`);
      const { messages, problems } = (await response.json()) as { messages: ChatMessage[]; problems: string[] };
      return { conversation: id, messages, problems };
    })();
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
  const { threads: served } = (await (await call('/api/threads?limit=100')).json()) as { threads: ServedThread[] };
  const list = served.map(({ id, metadata, updatedAt }) => ({
    id,
    title: typeof metadata.title === 'string' ? metadata.title : null,
    modifiedAt: updatedAt,
  }));
  return list.sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
}

/** A new conversation's id; the server makes its thread with the first prompt (`nameConversation`). */
export function newConversationId(): string {
  return crypto.randomUUID();
}

/** Makes the conversation's thread before its first prompt, named after that prompt (what the list shows until a rename). */
export async function nameConversation(conversation: string, firstPrompt: string): Promise<void> {
  const title = firstPrompt.trim().replace(/\s+/g, ' ').slice(0, 80);
  try {
    await send('POST', '/api/threads', { id: conversation, metadata: { title } });
  } catch (error) {
    // Already made (another tab sent first): it keeps the name it has.
    if (!(error instanceof ServerRefusal && error.kind === 'thread_exists')) throw error;
  }
}

export async function renameConversation(conversation: string, title: string): Promise<string> {
  const response = await send('PATCH', `/api/threads/${encodeURIComponent(conversation)}`, { metadata: { title: title.trim() } });
  return ((await response.json()) as ServedThread).metadata.title as string;
}

export async function deleteConversation(conversation: string): Promise<void> {
  await send('DELETE', `/api/threads/${encodeURIComponent(conversation)}`);
}

/** Shows another version of a message (`versions.ids`): the thread moves to that branch. */
export async function showVersion(conversation: string, message: string): Promise<Thread> {
  const response = await send('POST', `/api/chat/${encodeURIComponent(conversation)}/version`, { messageId: message });
  const { messages, problems } = (await response.json()) as { messages: ChatMessage[]; problems: string[] };
  return { conversation, messages, problems };
}

/**
 * Stops the conversation's reply on the server: leaving the stream does not (a reload resumes it), so
 * the page cancels the thread's run, on whichever worker runs it, and resolves once it has ended.
 */
export async function stopReply(conversation: string): Promise<void> {
  const { thread } = (await (await call(`/api/threads/${encodeURIComponent(conversation)}`)).json()) as { thread: ServedThread };
  if (thread.activeRunId === null) return;
  const run = encodeURIComponent(thread.activeRunId);
  // An empty JSON body: the example takes a POST only as JSON (guard.ts), so no other page can send one.
  await send('POST', `/api/runs/${run}/cancel`, {});
  // Once it has ended the thread takes the next prompt.
  await call(`/api/runs/${run}/wait`);
}

/**
 * `useChat`'s transport for a conversation. The server's thread already holds the conversation, so
 * only the last message travels, with what `useChat` says about it (`trigger`, and `messageId` for a
 * regenerate or an edit); `id` names the thread. A resumed stream comes from GET /api/chat/{id}/stream.
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
