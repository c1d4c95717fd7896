import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IndusagiError } from '../../../src/errors/index.js';
import { createAgent } from '../../../src/entries/runtime.js';
import { SessionStore } from '../../../src/entries/runtime.js';
import type { AnthropicClientLike } from '../../../src/providers/anthropic/index.js';
import { createMemoryStore } from '../../../src/memory/index.js';
import { sendParts } from '../../../src/transport/index.js';
import { agentRunParts } from '../../../src/parts/index.js';
import { Workspace, builtInTools } from '../../../src/cli/tools/index.js';
import { serveStatic } from './static.js';
import { itemsFromTurns } from './thread.js';

export type WebChatOptions = {
  /** The page built by Vite (its `outDir`). */
  pageDir: string;
  /** Where the session store keeps its files; the thread survives restarts here. */
  sessionsDir: string;
  /** The only folder the file tools may touch. */
  workspaceDir: string;
  client: AnthropicClientLike;
  model: string;
  /** Default `web-chat`: this example serves one conversation. */
  sessionId?: string;
  /** Default 0 (any free port); always on 127.0.0.1. */
  port?: number;
};

export type WebChat = { url: string; close(): Promise<void> };

const MAX_BODY = 1024 * 1024;

/** A request the API cannot act on; answered with 400 and this message. */
class BadRequestError extends IndusagiError {
  static override readonly errorName: string = 'BadRequestError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('bad_request', message, options);
  }
}

/**
 * The example's server: the built page, `GET /api/thread` (the conversation so far, from the session
 * store), and two NDJSON part streams, `POST /api/chat {prompt}` and
 * `POST /api/approve {approvalId, approved, reason?}`.
 */
export async function startWebChat(options: WebChatOptions): Promise<WebChat> {
  const workspace = await Workspace.open(options.workspaceDir);
  const agent = createAgent(
    {
      model: options.model,
      system: 'You are the assistant of a small web chat. You can list, read and write files in its workspace.',
      tools: builtInTools({ workspace, memory: createMemoryStore(), maxReadChars: 4_000 }),
      sessionId: options.sessionId ?? 'web-chat',
      compaction: {},
    },
    { store: new SessionStore(options.sessionsDir), client: options.client },
  );

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => Promise<unknown>> = {
    'GET /api/thread': async (_req, res) => {
      const snapshot = await agent.resume(agent.sessionId);
      sendJson(res, 200, { items: itemsFromTurns(snapshot.messages, snapshot.pendingApprovals) });
    },
    'POST /api/chat': async (req, res) => {
      const prompt = field(await readJson(req), 'prompt', 'string');
      return sendParts(res, (signal) => agentRunParts(agent, () => agent.submit(prompt, { signal })));
    },
    'POST /api/approve': async (req, res) => {
      const body = await readJson(req);
      const approvalId = field(body, 'approvalId', 'string');
      const approved = field(body, 'approved', 'boolean');
      const reason = (body as { reason?: unknown }).reason;
      if (reason !== undefined && typeof reason !== 'string') throw new BadRequestError('"reason" must be a string.');
      return sendParts(res, (signal) => {
        // approve/reject take no signal; abort the run only once it is ours to abort.
        let ours = false;
        signal.addEventListener('abort', () => ours && agent.abort(), { once: true });
        return agentRunParts(agent, () => {
          ours = true;
          return approved ? agent.approve(approvalId) : agent.reject(approvalId, reason);
        });
      });
    },
  };

  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    const route = routes[`${req.method} ${pathname}`];
    const handled = route ? route(req, res) : req.method === 'GET' ? serveStatic(res, options.pageDir, pathname) : Promise.reject(new BadRequestError(`No route ${req.method} ${pathname}.`));
    handled.catch((error: unknown) => {
      if (res.headersSent) {
        // The part stream already reports its own errors; anything else here cut a response short.
        console.error('[web-chat]', error);
        res.destroy();
        return;
      }
      if (BadRequestError.isInstance(error)) return sendJson(res, 400, { kind: error.kind, message: error.message });
      console.error('[web-chat]', error);
      sendJson(res, 500, { kind: 'internal', message: 'Internal error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
      await agent.close();
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new BadRequestError(`The body is larger than ${MAX_BODY} bytes.`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new BadRequestError('The body is not JSON.', { cause: error });
  }
}

function field<T extends 'string' | 'boolean'>(body: unknown, name: string, type: T): T extends 'string' ? string : boolean {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
  if (typeof value !== type || (type === 'string' && (value as string).trim() === '')) {
    throw new BadRequestError(`"${name}" must be a ${type === 'string' ? 'non-empty string' : type}.`);
  }
  return value as T extends 'string' ? string : boolean;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}
