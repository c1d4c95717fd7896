import type { MemoryEdit, MemoryStore } from '../../memory/types.js';
import { MemoryUnavailableError, NotFoundError, ServerRequestError } from '../errors.js';
import type { Principal } from '../types.js';
import { json, type RouteDeps, type RouteSpec } from './route.js';

/**
 * The memory routes. The tenant's memory store is the wall between tenants; inside it, a request sees
 * and manages the records of its user (`scope.resource` is the user), as the agent's memory tools
 * should save them, and searches see the tenant's shared records too.
 */
export function memoryRoutes(deps: RouteDeps): RouteSpec[] {
  const storeOf = (principal: Principal): MemoryStore & Required<Pick<MemoryStore, 'list' | 'update'>> => {
    const store = deps.memory(principal.tenant);
    if (store === undefined || store.list === undefined || store.update === undefined) throw new MemoryUnavailableError();
    return store as MemoryStore & Required<Pick<MemoryStore, 'list' | 'update'>>;
  };
  const own = (principal: Principal) => ({ scope: { resource: principal.user } });
  const unavailable = { '501': { description: 'The server keeps no memory.', schema: 'Error' } } as const;
  return [
    {
      method: 'get',
      path: '/memory',
      operationId: 'listMemory',
      tag: 'memory',
      summary: "The user's remembered records, in save order",
      params: [
        { name: 'kind', in: 'query', description: 'Only records of this kind.', schema: { type: 'string' } },
        { name: 'superseded', in: 'query', description: '`true`: also records a later one replaced.', schema: { type: 'boolean' } },
      ],
      responses: { '200': { description: 'The records.', schema: 'MemoryList' }, ...unavailable },
      async handle({ principal, query }) {
        const memories = await storeOf(principal).list({
          ...own(principal),
          kind: query.get('kind') ?? undefined,
          includeSuperseded: query.get('superseded') === 'true',
        });
        return json({ memories });
      },
    },
    {
      method: 'get',
      path: '/memory/search',
      operationId: 'searchMemory',
      tag: 'memory',
      summary: "Search the user's records and the tenant's shared ones",
      params: [
        { name: 'q', in: 'query', description: 'What to look for.', schema: { type: 'string' } },
        { name: 'k', in: 'query', description: 'At most this many (1-50, default 10).', schema: { type: 'integer' } },
      ],
      responses: { '200': { description: 'The best matches first, each with its `score`.', schema: 'MemoryList' }, ...unavailable },
      async handle({ principal, query }) {
        const q = query.get('q') ?? '';
        if (q.trim() === '') throw new ServerRequestError('q (what to search for) is empty.');
        const k = Number(query.get('k') ?? 10);
        if (!Number.isInteger(k) || k < 1 || k > 50)
          throw new ServerRequestError(`k must be a whole number from 1 to 50, got ${JSON.stringify(query.get('k'))}.`);
        return json({ memories: await storeOf(principal).search(q, { k, ...own(principal) }) });
      },
    },
    {
      method: 'patch',
      path: '/memory/{memoryId}',
      operationId: 'editMemory',
      tag: 'memory',
      summary: 'Edit a record in place',
      body: 'MemoryEdit',
      responses: {
        '200': { description: 'The record as edited.', schema: 'Memory' },
        '404': { description: 'No such record for this user.', schema: 'Error' },
        ...unavailable,
      },
      async handle({ principal, params, body }) {
        const edited = await storeOf(principal).update(params.memoryId!, body as MemoryEdit, own(principal));
        if (edited === undefined) throw new NotFoundError('memory', params.memoryId!);
        return json(edited);
      },
    },
    {
      method: 'delete',
      path: '/memory/{memoryId}',
      operationId: 'forgetMemory',
      tag: 'memory',
      summary: 'Forget a record',
      responses: {
        '204': { description: 'Forgotten.' },
        '404': { description: 'No such record for this user.', schema: 'Error' },
        ...unavailable,
      },
      async handle({ principal, params }) {
        if (!(await storeOf(principal).forget(params.memoryId!, own(principal)))) throw new NotFoundError('memory', params.memoryId!);
        return new Response(null, { status: 204 });
      },
    },
  ];
}
