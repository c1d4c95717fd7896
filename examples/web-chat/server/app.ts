import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import {
  agentRunParts,
  builtInTools,
  createAgent,
  itemsFromTurns,
  loadReportProblems,
  RunFault,
  sendParts,
  SessionStore,
  Workspace,
} from 'indusagi';
import type { AgentPart, AssistantItem, MemoryStore, RunSnapshot, SessionStoreLike, SessionSummary, Turn } from 'indusagi';
import type { AnthropicClientLike } from 'indusagi/anthropic';
import { createMemoryStore } from 'indusagi/memory';
import { ConversationAgents, releasingAtEnd } from './agents.js';
import { BrowserSessions } from './browsers.js';
import { readingStore } from './reading.js';
import { RequestGuard } from './guard.js';
import { badRequest, RefusedRequestError } from './refused.js';
import { serveStatic } from './static.js';
import { StoppedReplies, type StoppedReply } from './stopped.js';

export type WebChatOptions = {
  /** The page built by Vite (its `outDir`). */
  pageDir: string;
  /**
   * Where the session files are kept when no `store` is given; threads survive restarts here. Stopped
   * replies go beside it, in `stopped/`, whatever the store (they are this server's own).
   */
  sessionsDir: string;
  /** Where conversations live instead of files in `sessionsDir` (a `PostgresSessionStore` shared by several servers); stays yours to close. */
  store?: WebChatStore;
  /** What the remember and recall tools keep; default in this process's memory. Stays yours to close. */
  memory?: MemoryStore;
  /** The only folder the file tools may touch (one folder, shared by every browser's conversation). */
  workspaceDir: string;
  client: AnthropicClientLike;
  model: string;
  /** Default 0 (any free port); always on 127.0.0.1. */
  port?: number;
};

/** What the example needs of a session store: the agent's, reads for the thread, and the list behind `GET /api/conversations`. */
export type WebChatStore = SessionStoreLike & { listSessions(): Promise<SessionSummary[]> };

export type WebChat = { url: string; close(): Promise<void> };

const MAX_BODY = 1024 * 1024;

/**
 * The example's server: the built page, `GET /api/thread?conversation=` (a conversation so far, from
 * the session store, with the replies the user stopped and what the store could not read; a
 * browser's first call also starts its session), `GET /api/conversations` (this browser's, newest
 * first) and `POST /api/conversations` (a new one's id), and two NDJSON part streams,
 * `POST /api/chat {prompt, conversation?}` and `POST /api/approve {approvalId, approved, reason?,
 * conversation?}`. Requests naming another host, API calls from another origin and bodies that are
 * not JSON are refused (guard.ts).
 */
export async function startWebChat(options: WebChatOptions): Promise<WebChat> {
  const workspace = await Workspace.open(options.workspaceDir);
  const store = options.store ?? new SessionStore(options.sessionsDir);
  const stopped = new StoppedReplies(join(dirname(options.sessionsDir), 'stopped'));
  const tools = builtInTools({ workspace, memory: options.memory ?? createMemoryStore(), maxReadChars: 4_000 });
  const agentOn = (sessionStore: SessionStoreLike, sessionId: string) =>
    createAgent(
      {
        model: options.model,
        system: 'You are the assistant of a small web chat. You can list, read and write files in its workspace.',
        tools,
        sessionId,
        compaction: {},
      },
      { store: sessionStore, client: options.client },
    );
  const browsers = new BrowserSessions();
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

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<unknown>> = {
    'GET /api/thread': async (req, res) => {
      const sessionId = browsers.conversation(
        browsers.open(req, res),
        new URL(req.url ?? '/', 'http://localhost').searchParams.get('conversation'),
      );
      const snapshot = (await agents.ifOpen(sessionId, (agent) => agent.resume(sessionId))) ?? (await readThread(sessionId));
      // A damaged line makes the store fall back to what it could read: the user must hear of it.
      const problems = snapshot.loadReport === undefined ? [] : loadReportProblems(snapshot.loadReport);
      sendJson(res, 200, { conversation: sessionId, ...threadOf(snapshot, await stopped.of(sessionId)), problems });
    },
    'GET /api/conversations': async (req, res) => {
      const browser = browsers.existing(req);
      const mine = (await store.listSessions()).filter((session) => browsers.owns(browser, session.id));
      mine.sort((a, b) => b.modifiedAt.getTime() - a.modifiedAt.getTime());
      sendJson(res, 200, { conversations: mine.map(({ id, title, modifiedAt }) => ({ id, title, modifiedAt: modifiedAt.toISOString() })) });
    },
    'POST /api/conversations': async (req, res) => {
      const browser = browsers.existing(req);
      await readJson(req);
      sendJson(res, 200, { id: browsers.newConversation(browser) });
    },
    'POST /api/chat': async (req, res) => {
      const browser = browsers.existing(req);
      const body = await readJson(req);
      const sessionId = browsers.conversation(browser, (body as { conversation?: unknown }).conversation);
      const prompt = field(body, 'prompt', 'string');
      let said = '';
      let run: Promise<RunSnapshot> | undefined;
      const outcome = await agents.use(sessionId, (agent, release) =>
        sendParts(res, (signal) =>
          releasingAtEnd(
            tapText(agentRunParts((run = agent.submit(prompt, { signal }))), (text) => (said += text)),
            release,
          ),
        ),
      );
      // The page stopped the reply (it hung up): keep what it had been shown, and where.
      const fault =
        outcome === 'disconnected'
          ? await run?.then(
              () => null,
              (error: unknown) => error,
            )
          : null;
      if (RunFault.isInstance(fault) && fault.kind === 'aborted')
        await stopped.record(sessionId, { afterTurns: fault.snapshot.messages.length, text: said });
    },
    'POST /api/approve': async (req, res) => {
      const browser = browsers.existing(req);
      const body = await readJson(req);
      const sessionId = browsers.conversation(browser, (body as { conversation?: unknown }).conversation);
      const approvalId = field(body, 'approvalId', 'string');
      const approved = field(body, 'approved', 'boolean');
      const reason = (body as { reason?: unknown }).reason;
      if (reason !== undefined && typeof reason !== 'string') throw badRequest('"reason" must be a string.');
      return agents.use(sessionId, (agent, release) =>
        sendParts(res, (signal) => {
          // approve/reject take no signal; abort the run only once it is ours to abort.
          let ours = false;
          signal.addEventListener('abort', () => ours && agent.abort(), { once: true });
          ours = true;
          const parts = agentRunParts(approved ? agent.approve(approvalId) : agent.reject(approvalId, reason));
          return releasingAtEnd(parts, release);
        }),
      );
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
        // The part stream already reports its own errors; anything else here cut a response short.
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

/**
 * The page's thread: the session's turns as chat items, with each stopped reply put back where it
 * was cut off (after the turns it followed), and the positions of the items that were stopped.
 */
function threadOf(snapshot: RunSnapshot, stops: readonly StoppedReply[]): { items: AssistantItem[]; stopped: number[] } {
  const items: AssistantItem[] = [];
  const stoppedAt: number[] = [];
  let from = 0;
  const add = (turns: Turn[]) => items.push(...itemsFromTurns(turns, snapshot.pendingApprovals));
  for (const stop of [...stops].sort((a, b) => a.afterTurns - b.afterTurns)) {
    if (stop.afterTurns > snapshot.messages.length) continue;
    add(snapshot.messages.slice(from, stop.afterTurns));
    from = stop.afterTurns;
    // Cut off after tools of its own run: the text joins that reply, as it did on the page.
    const last = items[items.length - 1];
    const said: AgentPart[] = stop.text === '' ? [] : [{ type: 'text', text: stop.text }];
    if (last?.role === 'assistant') items[items.length - 1] = { role: 'assistant', parts: [...last.parts, ...said] };
    else items.push({ role: 'assistant', parts: said });
    stoppedAt.push(items.length - 1);
  }
  add(snapshot.messages.slice(from));
  return { items, stopped: stoppedAt };
}

async function* tapText(parts: AsyncGenerator<AgentPart>, onText: (text: string) => void): AsyncGenerator<AgentPart> {
  for await (const part of parts) {
    if (part.type === 'text') onText(part.text);
    yield part;
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
