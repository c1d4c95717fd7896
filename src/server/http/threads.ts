import { randomUUID } from 'node:crypto';
import type { SessionGraph } from '../../runtime/store/index.js';
import type { SessionNode } from '../../runtime/contract/session.js';
import { RunRefusedError, ServerRequestError } from '../errors.js';
import type { Principal, ThreadRecord } from '../types.js';
import { json, limitOf, liveMessages, ownedThread, threadIdOf, threadView, type RouteDeps, type RouteSpec } from './route.js';
import { waitForEnd } from './wait.js';

/** The thread routes: create, list, state, history, fork, metadata, delete. */
export function threadRoutes(deps: RouteDeps): RouteSpec[] {
  const { backend } = deps;
  const owned = (principal: Principal, raw: string | undefined) => ownedThread(backend, principal.tenant, raw);
  const state = async (thread: ThreadRecord) => ({ thread: threadView(thread), messages: await liveMessages(deps, thread) });
  return [
    {
      method: 'post',
      path: '/threads',
      operationId: 'createThread',
      tag: 'threads',
      summary: 'Create a thread',
      description: 'A thread is one conversation (one session in the store); give it an `id` of your own or let the server pick one.',
      body: 'ThreadCreate',
      bodyOptional: true,
      responses: { '201': { description: 'The thread.', schema: 'Thread' }, '409': { description: 'The id is taken.', schema: 'Error' } },
      async handle({ principal, body }) {
        const given = body as { id?: string; metadata?: Record<string, unknown> };
        const id = given.id === undefined ? randomUUID() : threadIdOf(given.id);
        return json(threadView(await backend.createThread(principal, id, given.metadata ?? {})), 201);
      },
    },
    {
      method: 'get',
      path: '/threads',
      operationId: 'listThreads',
      tag: 'threads',
      summary: "List the tenant's threads, newest first",
      params: [
        { name: 'limit', in: 'query', description: 'At most this many (1-100, default 20).', schema: { type: 'integer' } },
        {
          name: 'before',
          in: 'query',
          description: 'Only threads created before this time (the last `createdAt` of the previous page).',
          schema: { type: 'string' },
        },
      ],
      responses: { '200': { description: 'The threads.', schema: 'ThreadList' } },
      async handle({ principal, query }) {
        const before = query.get('before') ?? undefined;
        if (before !== undefined && Number.isNaN(Date.parse(before)))
          throw new ServerRequestError(`before must be a time, got ${JSON.stringify(before)}.`);
        const threads = await backend.listThreads(principal.tenant, { limit: limitOf(query), before });
        return json({ threads: threads.map(threadView) });
      },
    },
    {
      method: 'get',
      path: '/threads/{threadId}',
      operationId: 'getThread',
      tag: 'threads',
      summary: 'The thread and its context',
      description:
        'The context is the conversation as the model will next see it (condensed where condensation ran). While a run is under way it shows what that run has stored so far.',
      responses: {
        '200': { description: 'Its state.', schema: 'ThreadState' },
        '404': { description: 'No such thread for this tenant.', schema: 'Error' },
      },
      async handle({ principal, params }) {
        return json(await state(await owned(principal, params.threadId)));
      },
    },
    {
      method: 'get',
      path: '/threads/{threadId}/history',
      operationId: 'getThreadHistory',
      tag: 'threads',
      summary: 'Every node of every branch of the thread',
      responses: {
        '200': { description: 'The session tree.', schema: 'ThreadHistory' },
        '404': { description: 'No such thread.', schema: 'Error' },
      },
      async handle({ principal, params }) {
        const thread = await owned(principal, params.threadId);
        const graph = await deps.sessions(principal.tenant).loadSession(thread.id);
        return json({ leaf: graph.leaf, nodes: await allNodes(graph) });
      },
    },
    {
      method: 'post',
      path: '/threads/{threadId}/fork',
      operationId: 'forkThread',
      tag: 'threads',
      summary: 'Branch the thread from an earlier node',
      description:
        "Moves the thread's live leaf to `nodeId` (a node from its history), so the next prompt starts a new branch there; the later turns stay in the history. Runs on a worker like any run (it needs the thread's writer lease) and answers once it is done.",
      body: 'ThreadFork',
      responses: {
        '200': { description: 'The thread as it stands on the new branch.', schema: 'ThreadState' },
        '400': { description: 'No such node, or a node the thread cannot branch from.', schema: 'Error' },
        '409': { description: 'The thread is running something.', schema: 'Error' },
      },
      async handle({ principal, params, body, request }) {
        const thread = await owned(principal, params.threadId);
        const { nodeId } = body as { nodeId: string };
        await forkThread(deps, principal, thread.id, nodeId, request.signal);
        return json(await state(await owned(principal, thread.id)));
      },
    },
    {
      method: 'patch',
      path: '/threads/{threadId}',
      operationId: 'updateThread',
      tag: 'threads',
      summary: "Change the thread's metadata",
      description:
        "Merges `metadata` into the thread's, key by key (a key set to null is removed): a title a person gave the conversation, say. The session is untouched, so this works while a run is under way.",
      body: 'ThreadUpdate',
      responses: {
        '200': { description: 'The thread.', schema: 'Thread' },
        '404': { description: 'No such thread.', schema: 'Error' },
      },
      async handle({ principal, params, body }) {
        const { metadata } = body as { metadata: Record<string, unknown> };
        return json(threadView(await backend.updateThread(principal.tenant, threadIdOf(params.threadId), metadata)));
      },
    },
    {
      method: 'delete',
      path: '/threads/{threadId}',
      operationId: 'deleteThread',
      tag: 'threads',
      summary: 'Delete the thread, its runs and their events',
      description:
        'Refused while a run is queued or running (cancel it first). A session kept in files is deleted with it; see docs/server.md for PostgreSQL.',
      responses: {
        '204': { description: 'Deleted.' },
        '404': { description: 'No such thread.', schema: 'Error' },
        '409': { description: 'The thread is running something.', schema: 'Error' },
      },
      async handle({ principal, params }) {
        const id = threadIdOf(params.threadId);
        await backend.deleteThread(principal.tenant, id);
        await deps.removeSession(principal.tenant, id);
        return new Response(null, { status: 204 });
      },
    },
  ];
}

/**
 * Moves the thread's live leaf to `nodeId` (null: before its first turn) through a run on a worker (it
 * needs the thread's writer lease), and resolves once that run is done; a node the session cannot
 * branch from is a `RunRefusedError` (400, the conductor's kind).
 */
export async function forkThread(deps: RouteDeps, principal: Principal, threadId: string, nodeId: string | null, signal: AbortSignal) {
  const run = await deps.backend.createRun(principal, threadId, { kind: 'fork', nodeId }, queueOptions(deps, false));
  await waitForEnd(deps.backend.tails, run.id, signal, deps.keepAliveMs);
  const ended = await deps.backend.getRun(principal.tenant, run.id);
  if (ended?.error != null) throw new RunRefusedError(ended.error.kind, ended.error.message, run.id);
}

export function queueOptions(deps: RouteDeps, createThread: boolean) {
  return { createThread, maxQueued: deps.limits.maxQueuedRunsPerTenant, retryAfterSeconds: 2 };
}

/** Every node of the session, parents first, read whole when the store gave only the live path. */
async function allNodes(graph: SessionGraph): Promise<Array<Pick<SessionNode, 'id' | 'parent' | 'at' | 'turn'>>> {
  if (!graph.whole) await graph.loadWhole();
  const out: Array<Pick<SessionNode, 'id' | 'parent' | 'at' | 'turn'>> = [];
  const queue: Array<string | null> = [null];
  while (queue.length > 0) {
    for (const node of graph.children(queue.shift()!)) {
      out.push({ id: node.id, parent: node.parent, at: node.at, turn: node.turn });
      queue.push(node.id);
    }
  }
  return out;
}
