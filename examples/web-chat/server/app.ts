import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createAgent, IndusagiError, RunFault, SessionStore } from 'indusagi';
import { BranchPointError } from 'indusagi/runtime';
import { builtInTools, Workspace } from 'indusagi/workspace';
import { ChatRequestError, readChatRequest, sendUIMessageChunks, uiMessageChunks } from 'indusagi/ui-message';
import { loadReportProblems } from 'indusagi/store';
import type { Agent, MemoryStore, SessionStoreLike } from 'indusagi';
import type { ChatRequest, UIMessageChunk } from 'indusagi/ui-message';
import type { SessionGraph } from 'indusagi/runtime';
import type { SessionSummary } from 'indusagi/store';
import type { AnthropicClientLike } from 'indusagi/anthropic';
import { createMemoryStore } from 'indusagi/memory';
import { ConversationAgents, releasingAtEnd } from './agents.js';
import { BrowserSessions, unknownConversation } from './browsers.js';
import { ConversationListEdits } from './list-edits.js';
import { browserMemory } from './memory.js';
import { readingStore } from './reading.js';
import { RequestGuard } from './guard.js';
import { badRequest, RefusedRequestError } from './refused.js';
import { serveStatic } from './static.js';
import { StoppedReplies } from './stopped.js';
import { editFrom, regenerateFrom, switchTo, threadOf } from './thread.js';

export type WebChatOptions = {
  /** The page built by Vite (its `outDir`). */
  pageDir: string;
  /**
   * Where the session files are kept when no `store` is given; threads survive restarts here. Stopped
   * replies (`stopped/`) and the browsers' names for their conversations (`lists/`) go beside it,
   * whatever the store (they are this server's own).
   */
  sessionsDir: string;
  /** Where conversations live instead of files in `sessionsDir` (a `PostgresSessionStore` shared by several servers); stays yours to close. */
  store?: WebChatStore;
  /** What the remember and recall tools keep, each browser in its own scope; default in this process's memory. Stays yours to close. */
  memory?: MemoryStore;
  /** The only folder the file tools may touch (one folder, shared by every browser's conversation). */
  workspaceDir: string;
  client: AnthropicClientLike;
  model: string;
  /** Default 0 (any free port); always on 127.0.0.1. */
  port?: number;
};

/** What the example needs of a session store: the agent's, reads for the thread, and the list behind `GET /api/conversations`. */
export type WebChatStore = SessionStoreLike & { listSessions(): Promise<SessionSummary[]>; loadSession(id: string): Promise<SessionGraph> };

export type WebChat = { url: string; close(): Promise<void> };

const MAX_BODY = 1024 * 1024;

/**
 * The example's server: the built page and a JSON API for it. `GET /api/thread?conversation=` (a
 * conversation's live path as `useChat` messages, from the session store, with the replies the user
 * stopped and what the store could not read; a browser's first call also starts its session),
 * `GET /api/conversations` (this browser's, newest first), `POST /api/conversations` (a new one's id),
 * `POST /api/conversations/rename {conversation, title}`, `POST /api/conversations/delete
 * {conversation}`, `POST /api/branch {conversation, message}` (show another version of a message), and
 * `POST /api/chat`, the UI message stream `useChat` reads: a prompt, an edited prompt, a regenerate or
 * approval decisions (`readChatRequest`; `id` names the conversation). Requests naming another host,
 * API calls from another origin and bodies that are not JSON are refused (guard.ts).
 */
export async function startWebChat(options: WebChatOptions): Promise<WebChat> {
  const workspace = await Workspace.open(options.workspaceDir);
  const store = options.store ?? new SessionStore(options.sessionsDir);
  const stopped = new StoppedReplies(join(dirname(options.sessionsDir), 'stopped'));
  const listEdits = new ConversationListEdits(join(dirname(options.sessionsDir), 'lists'));
  const memory = options.memory ?? createMemoryStore();
  const browsers = new BrowserSessions();
  const agentOn = (sessionStore: SessionStoreLike, sessionId: string) =>
    createAgent(
      {
        model: options.model,
        system: 'You are the assistant of a small web chat. You can list, read and write files in its workspace.',
        // Each browser remembers and recalls in its own scope of the one memory store.
        tools: builtInTools({ workspace, memory: browserMemory(memory, browsers.ownerOf(sessionId)), maxReadChars: 4_000 }),
        sessionId,
        compaction: {},
      },
      { store: sessionStore, client: options.client },
    );
  const agents = new ConversationAgents((sessionId) => agentOn(store, sessionId));
  const reading = readingStore(store);
  // A thread no request here has open is read without the writer lock: showing a conversation never
  // keeps a reply out of it, and one being written on another server shows as far as it is stored.
  const readThread = async (sessionId: string) => {
    const reader = agentOn(reading, sessionId);
    try {
      return await reader.resume(sessionId);
    } finally {
      await reader.close();
    }
  };
  // The whole session, every branch: the page shows a message's other versions.
  const wholeGraph = async (sessionId: string) => {
    const graph = await store.loadSession(sessionId);
    await graph.loadWhole();
    return graph;
  };
  /** One of this browser's conversations that it has not deleted. */
  const conversationOf = async (browser: string, requested: unknown): Promise<string> => {
    const id = browsers.conversation(browser, requested);
    if ((await listEdits.of(browser)).deleted.includes(id)) throw unknownConversation();
    return id;
  };
  const thread = async (sessionId: string) => {
    // After a reply this server is writing (or one the page just stopped, recorded once the run ends).
    await agents.settled(sessionId);
    const snapshot = (await agents.ifOpen(sessionId, (agent) => agent.resume(sessionId))) ?? (await readThread(sessionId));
    // A damaged line makes the store fall back to what it could read: the user must hear of it.
    const problems = snapshot.loadReport === undefined ? [] : loadReportProblems(snapshot.loadReport);
    const messages = threadOf(await wholeGraph(sessionId), snapshot.pendingApprovals, await stopped.of(sessionId));
    return { conversation: sessionId, messages, problems };
  };

  /** Moves the session back as an edit or a regenerate asks, and says what to run from there. */
  const aim = async (agent: Agent, sessionId: string, request: ChatRequest): Promise<ChatRequest> => {
    if (request.kind !== 'prompt') return request;
    if (request.trigger === 'regenerate-message') {
      await branch(agent, regenerateFrom(await wholeGraph(sessionId), request.messageId));
      return { kind: 'continue' };
    }
    if (request.messageId !== undefined) await branch(agent, editFrom(await wholeGraph(sessionId), request.messageId));
    return request;
  };

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<unknown>> = {
    'GET /api/thread': async (req, res) => {
      const browser = browsers.open(req, res);
      const requested = new URL(req.url ?? '/', 'http://localhost').searchParams.get('conversation');
      const first = requested === null && (await listEdits.of(browser)).deleted.includes(browser);
      // The browser deleted its first conversation: a new one takes its place.
      sendJson(res, 200, await thread(first ? browsers.newConversation(browser) : await conversationOf(browser, requested)));
    },
    'GET /api/conversations': async (req, res) => {
      const browser = browsers.existing(req);
      const { titles, deleted } = await listEdits.of(browser);
      const mine = (await store.listSessions()).filter((session) => browsers.owns(browser, session.id) && !deleted.includes(session.id));
      mine.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
      const conversations = mine.map(({ id, title, modifiedAt }) => ({
        id,
        title: titles[id] ?? title,
        modifiedAt: modifiedAt.toISOString(),
      }));
      sendJson(res, 200, { conversations });
    },
    'POST /api/conversations': async (req, res) => {
      const browser = browsers.existing(req);
      await readJson(req);
      sendJson(res, 200, { id: browsers.newConversation(browser) });
    },
    'POST /api/conversations/rename': async (req, res) => {
      const browser = browsers.existing(req);
      const body = await readJson(req);
      const id = await conversationOf(browser, field(body, 'conversation', 'string'));
      sendJson(res, 200, { id, title: await listEdits.rename(browser, id, (body as { title?: unknown }).title) });
    },
    'POST /api/conversations/delete': async (req, res) => {
      const browser = browsers.existing(req);
      const id = await conversationOf(browser, field(await readJson(req), 'conversation', 'string'));
      await listEdits.delete(browser, id);
      sendJson(res, 200, { id });
    },
    'POST /api/branch': async (req, res) => {
      const browser = browsers.existing(req);
      const body = await readJson(req);
      const sessionId = await conversationOf(browser, field(body, 'conversation', 'string'));
      const message = field(body, 'message', 'string');
      await agents.use(sessionId, async (agent) => branch(agent, switchTo(await wholeGraph(sessionId), message)));
      sendJson(res, 200, await thread(sessionId));
    },
    'POST /api/chat': async (req, res) => {
      const browser = browsers.existing(req);
      let request: ChatRequest;
      try {
        request = readChatRequest(await readJson(req));
      } catch (error) {
        if (ChatRequestError.isInstance(error)) throw badRequest(error.message, { cause: error });
        throw error;
      }
      const sessionId = await conversationOf(browser, request.chatId);
      await agents.use(sessionId, async (agent, release) => {
        const run = await aim(agent, sessionId, request);
        let said = '';
        let stop: RunFault | undefined;
        const onError = (error: unknown) => {
          if (RunFault.isInstance(error) && error.kind === 'aborted') stop = error;
          // The page hears every failure from the stream; only what is not indusagi's own is worth a log line.
          else if (!IndusagiError.isInstance(error)) console.error('[web-chat] a reply failed:', error);
        };
        // The page stopped the reply (it hung up): keep what it had been shown, and where, before the
        // conversation is handed back (the session's leaf is still the one the reply came after).
        async function* recording(chunks: AsyncIterable<UIMessageChunk>): AsyncGenerator<UIMessageChunk> {
          for await (const chunk of chunks) {
            if (chunk.type === 'text-delta') said += chunk.delta;
            yield chunk;
          }
          if (stop === undefined) return;
          const leaf = (await store.loadSession(sessionId)).leaf;
          if (leaf !== null) await stopped.record(sessionId, { after: leaf, text: said });
        }
        await sendUIMessageChunks(res, (signal) => releasingAtEnd(recording(uiMessageChunks(agent, run, signal, { onError })), release));
      });
    },
  };

  let guard: RequestGuard | undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    guard!.checkHost(req);
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    if (pathname.startsWith('/api/')) guard!.checkApiCall(req);
    const route = routes[`${req.method} ${pathname}`];
    if (route) return route(req, res);
    if (req.method === 'GET') return serveStatic(res, options.pageDir, pathname);
    throw badRequest(`No route ${req.method} ${pathname}.`);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        // The stream already reports its own errors; anything else here cut a response short.
        console.error('[web-chat]', error);
        res.destroy();
        return;
      }
      if (RefusedRequestError.isInstance(error)) return sendJson(res, error.status, { kind: error.kind, message: error.message });
      console.error('[web-chat]', error);
      sendJson(res, 500, { kind: 'internal', message: 'Internal error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  guard = new RequestGuard(port);
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      await agents.closeAll();
    },
  };
}

/** `agent.branchFrom`, with a node the session cannot continue from refused as a conflict the page can show. */
async function branch(agent: Agent, nodeId: string | null): Promise<void> {
  try {
    await agent.branchFrom(nodeId);
  } catch (error) {
    if (BranchPointError.isInstance(error)) throw new RefusedRequestError(409, 'cannot_branch', error.message, { cause: error });
    throw error;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw badRequest(`The body is larger than ${MAX_BODY} bytes.`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw badRequest('The body is not JSON.', { cause: error });
  }
}

function field<T extends 'string' | 'boolean'>(body: unknown, name: string, type: T): T extends 'string' ? string : boolean {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value !== type || (type === 'string' && (value as string).trim() === '')) {
    throw badRequest(`"${name}" must be a ${type === 'string' ? 'non-empty string' : type}.`);
  }
  return value as T extends 'string' ? string : boolean;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
