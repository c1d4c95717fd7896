import type { ServerBackend } from '../backend/types.js';
import type { MemoryStore } from '../../memory/types.js';
import type { SessionGraph } from '../../runtime/store/index.js';
import type { SessionReader } from '../../runtime/store/load-session.js';
import { sessionIdProblem } from '../../runtime/store/session-id.js';
import { NotFoundError, ServerRequestError } from '../errors.js';
import type { Principal, RunRecord, ThreadRecord } from '../types.js';
import type { requestSchemas, responseSchemas } from './schemas.js';

/** What the routes need of the server: where things are kept and its limits. */
export type RouteDeps = {
  backend: ServerBackend;
  /** The tenant's sessions, read only here (workers write them). */
  sessions(tenant: string): SessionReader & { loadSession(id: string): Promise<SessionGraph> };
  memory(tenant: string): MemoryStore | undefined;
  /** Removes a deleted thread's session from its store, where the store can (files). */
  removeSession(tenant: string, id: string): Promise<void>;
  limits: { maxBodyBytes: number; maxQueuedRunsPerTenant: number; maxPromptChars: number };
  keepAliveMs: number;
  /** What /health tells; `database: 'unreachable'` makes it a 503. */
  health(): Promise<Record<string, unknown>>;
};

export type RouteContext = {
  request: Request;
  params: Record<string, string>;
  query: URLSearchParams;
  principal: Principal;
  /** The body, checked against the route's schema (undefined for routes without one). */
  body: unknown;
};

type Param = { name: string; in: 'query' | 'header'; description: string; schema: object };

/**
 * One route: the handler and everything the OpenAPI document says of it. The app registers these and
 * `GET /openapi.json` is built from the same list, so every route is documented and no document entry
 * lacks a route.
 */
export type RouteSpec = {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI style: `/threads/{threadId}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: 'threads' | 'runs' | 'memory' | 'chat' | 'server';
  /** Routes anyone may call (health, the document); every other route needs credentials. */
  open?: true;
  body?: keyof typeof requestSchemas;
  /** The body may be left out (then it is `{}`). */
  bodyOptional?: true;
  params?: Param[];
  responses: Record<string, { description: string; schema?: keyof typeof responseSchemas; stream?: 'sse' | 'ui-message' }>;
  handle(context: RouteContext): Promise<Response>;
};

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(data), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
}

/** A thread id from the path: a session id (no separators, `..`, control characters; at most 200 bytes). */
export function threadIdOf(raw: string | undefined): string {
  const problem = sessionIdProblem(raw);
  if (problem !== null) throw new ServerRequestError(`${JSON.stringify(raw)} is not a thread id: ${problem}.`);
  return raw!;
}

/** The tenant's thread that `raw` (from the path or a body) names; a `NotFoundError` (404) when it has none. */
export async function ownedThread(backend: ServerBackend, tenant: string, raw: string | undefined): Promise<ThreadRecord> {
  const id = threadIdOf(raw);
  const thread = await backend.getThread(tenant, id);
  if (thread === undefined) throw new NotFoundError('thread', id);
  return thread;
}

/** The thread's live path as the model will next see it (condensed where condensation ran); empty before its first turn. */
export async function liveMessages(deps: RouteDeps, thread: ThreadRecord) {
  const graph = await deps.sessions(thread.tenant).loadSession(thread.id);
  return graph.leaf === null ? [] : graph.resume(graph.leaf);
}

/** `?limit=` from 1 to 100 (default 20). */
export function limitOf(query: URLSearchParams, fallback = 20): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new ServerRequestError(`limit must be a whole number from 1 to 100, got ${JSON.stringify(raw)}.`);
  return limit;
}

/** Where a stream resumes: after `Last-Event-ID` (what EventSource sends on a reconnect) or `?after=`; 0 for the start. */
export function afterIdOf(request: Request, query: URLSearchParams): number {
  const raw = request.headers.get('last-event-id') ?? query.get('after');
  if (raw === null || raw === '') return 0;
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw.trim()) || !Number.isSafeInteger(id))
    throw new ServerRequestError(`Last-Event-ID must be an event id (a whole number), got ${JSON.stringify(raw)}.`);
  return id;
}

/** A thread as the API shows it (its context mark is the server's own). */
export function threadView(thread: ThreadRecord) {
  const { mark: _mark, tenant: _tenant, ...view } = thread;
  return view;
}

/** A run as the API shows it. */
export function runView(run: RunRecord) {
  const { base: _base, tenant: _tenant, ...view } = run;
  return view;
}
