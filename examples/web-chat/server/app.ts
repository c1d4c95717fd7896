import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { agentTool } from 'indusagi/agents';
import { createAnthropicInvoker, type AnthropicClientLike } from 'indusagi/anthropic';
import { createMemoryStore } from 'indusagi/memory';
import { createServer, type AgentServer, type DatabaseOption } from 'indusagi/server';
import { builtInTools, Workspace } from 'indusagi/workspace';
import type { MemoryStore } from 'indusagi';
import { browsers } from './browsers.js';
import { RequestGuard } from './guard.js';
import { browserMemory } from './memory.js';
import { RefusedRequestError } from './refused.js';
import { serveStatic } from './static.js';
import { checkedTitleBody } from './titles.js';

export type WebChatOptions = {
  /** The page built by Vite (its `outDir`). */
  pageDir: string;
  /** One machine: the agent server's folder (threads, runs, their events, each browser's session files). */
  dataDir: string;
  /** Several servers: the PostgreSQL database they share (migrated with `indusagi db migrate`) instead of files. */
  database?: DatabaseOption;
  /** The schema of the server's tables on `database` (default `indusagi`). */
  schema?: string;
  /** The only folder the file tools may touch (one folder, shared by every browser's conversation). */
  workspaceDir: string;
  client: AnthropicClientLike;
  model: string;
  /** Default 0 (any free port); always on 127.0.0.1. */
  port?: number;
};

export type WebChat = { url: string; server: AgentServer; close(): Promise<void> };

/**
 * The example's one process: the agent server (`indusagi/server`, as `indusagi serve` runs it: files and
 * an in-process queue, or PostgreSQL) under `/api`, and the built page at every other path. What the
 * example adds to the server is only what a page on a person's machine needs: each browser is a tenant
 * (its cookie, browsers.ts, given out with the page), requests naming another host and API calls from
 * another origin are refused (guard.ts), a conversation's name must be one the page can show
 * (titles.ts), and each browser's agent remembers in its own scope.
 */
export async function startWebChat(options: WebChatOptions): Promise<WebChat> {
  const workspace = await Workspace.open(options.workspaceDir);
  const invokeModel = createAnthropicInvoker(options.client);
  // On files, memory lives in this process, a store per browser; on PostgreSQL the server keeps it per
  // tenant in the database (PostgresMemoryStore), so it follows the browser to every server.
  const memories = new Map<string, MemoryStore>();
  const server = await createServer({
    ...(options.database === undefined
      ? {
          dataDir: options.dataDir,
          memory: (tenant: string) => {
            if (!memories.has(tenant)) memories.set(tenant, createMemoryStore());
            return memories.get(tenant);
          },
        }
      : { database: options.database, worker: true, ...(options.schema !== undefined && { schema: options.schema }) }),
    authenticate: (request) => {
      const browser = browsers.of(request);
      return browser === null ? null : { tenant: browser, user: browser };
    },
    agent: ({ user, memory }) => {
      // Both kinds of server above have a memory store for every tenant; a run without one fails, named.
      if (memory === undefined) throw new RefusedRequestError(500, 'no_memory', 'This server keeps no memory for this browser.');
      // The browser remembers and recalls in its own scope of its tenant's memory.
      const tools = builtInTools({ workspace, memory: browserMemory(memory, user), maxReadChars: 4_000 });
      // A sub-agent (docs/subagents.md) that only looks: its own calls stream to the page nested in the
      // card of the call that asked it ("ask the researcher to read plan.md" on the demo model).
      const researcher = agentTool(
        {
          model: options.model,
          system: 'You find things out from the files in the workspace, and report what they say. You cannot change them.',
          tools: tools.filter((tool) => tool.name === 'files.list' || tool.name === 'files.read'),
        },
        { name: 'researcher', description: 'Reads the files of the workspace and reports what they say.' },
      );
      return {
        config: {
          model: options.model,
          system:
            'You are the assistant of a small web chat. You can list, read and write files in its workspace, and ask the researcher to look things up in them.',
          tools: [...tools, researcher],
          compaction: {},
        },
        invokeModel,
      };
    },
  });

  let guard: RequestGuard | undefined;
  const handle = async (request: Request): Promise<Response> => {
    guard!.checkHost(request);
    const url = new URL(request.url);
    if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
      guard!.checkApiCall(request);
      url.pathname = url.pathname.slice('/api'.length) || '/';
      const naming =
        (request.method === 'POST' && url.pathname === '/threads') || (request.method === 'PATCH' && url.pathname.startsWith('/threads/'));
      const body =
        request.method === 'GET' || request.method === 'HEAD' ? undefined : naming ? await checkedTitleBody(request) : request.body;
      return server.fetch(
        new Request(url, { method: request.method, headers: request.headers, body, signal: request.signal, duplex: 'half' } as RequestInit),
      );
    }
    if (request.method !== 'GET') throw new RefusedRequestError(405, 'method_not_allowed', `The page answers GET, not ${request.method}.`);
    const page = await serveStatic(options.pageDir, url.pathname);
    // The page hands a new browser its cookie, so its first API call already says who it is.
    const cookie = url.pathname === '/' || url.pathname === '/index.html' ? browsers.cookieFor(request) : null;
    if (cookie !== null) page.headers.set('set-cookie', cookie);
    return page;
  };
  const http = createAdaptorServer({
    overrideGlobalObjects: false,
    fetch: (request: Request) =>
      handle(request).catch((error: unknown) => {
        if (RefusedRequestError.isInstance(error)) {
          return Response.json({ error: { kind: error.kind, message: error.message } }, { status: error.status });
        }
        console.error('[web-chat]', error);
        return Response.json({ error: { kind: 'internal', message: 'Internal error' } }, { status: 500 });
      }),
  }) as Server;
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  guard = new RequestGuard(port);
  return {
    url: `http://127.0.0.1:${port}/`,
    server,
    close: async () => {
      // Open streams would hold the listener open; the server then lets its runs end (or hands them back).
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await server.close(5_000);
    },
  };
}
