import { Hono } from 'hono';
import { IndusagiError } from '../../errors/index.js';
import { checkPrincipal } from '../auth.js';
import { ForbiddenError, NotFoundError, ServerError, UnauthorizedError } from '../errors.js';
import type { Authenticate, Principal } from '../types.js';
import { readJsonBody, readOptionalJsonBody } from './body.js';
import { chatRoutes } from './chat.js';
import { memoryRoutes } from './memory.js';
import { openApiDocument } from './openapi.js';
import { json, type RouteDeps, type RouteSpec } from './route.js';
import { requestSchemas } from './schemas.js';
import { runRoutes } from './runs.js';
import { threadRoutes } from './threads.js';

export type AppDeps = RouteDeps & { authenticate: Authenticate; log: (message: string, error: unknown) => void };

// Errors of other modules that only bad input causes: the client's doing, answered 400.
const BAD_INPUT = new Set(['invalid_session_id', 'memory_input', 'invalid_chat_request', 'invalid_turn']);
// The database is missing, behind or failing: the server cannot answer now, the request was fine.
const UNAVAILABLE = new Set(['postgres_store', 'postgres_schema_behind', 'postgres_unavailable']);

const NOBODY: Principal = { tenant: '', user: '' };

/** Every route, in the order the document lists them. */
export function allRoutes(deps: AppDeps): RouteSpec[] {
  const server: RouteSpec[] = [
    {
      method: 'get',
      path: '/health',
      operationId: 'health',
      tag: 'server',
      summary: 'Whether the server is up (no credentials needed)',
      open: true,
      responses: {
        '200': { description: 'Up.', schema: 'Health' },
        '503': { description: 'Up, but its database is unreachable (runs resume once it is back).', schema: 'Health' },
      },
      handle: async () => {
        const state = await deps.health();
        // A load balancer sends no requests to an instance that cannot reach the database meanwhile.
        return state.database === 'unreachable' ? json({ ok: false, ...state }, 503) : json({ ok: true, ...state });
      },
    },
    {
      method: 'get',
      path: '/openapi.json',
      operationId: 'openapi',
      tag: 'server',
      summary: 'This document',
      open: true,
      responses: { '200': { description: 'The OpenAPI 3.1 document of this server.' } },
      handle: async () => json(document),
    },
  ];
  const routes = [...server, ...threadRoutes(deps), ...runRoutes(deps), ...memoryRoutes(deps), ...chatRoutes(deps)];
  const document = openApiDocument(routes);
  return routes;
}

/**
 * The server's HTTP side as a Web `fetch` handler (Hono routes it): credentials first (401 without,
 * 403 for a read-only principal that asks to change something), then the body, checked against the
 * route's schema, then the route. Errors become `{ "error": { "kind", "message" } }` with the status
 * their kind calls for; anything unexpected is logged and answered 500 without its details.
 */
export function buildFetch(deps: AppDeps): (request: Request) => Promise<Response> {
  const app = new Hono();
  for (const route of allRoutes(deps)) {
    app.on(route.method.toUpperCase(), route.path.replace(/\{(\w+)\}/g, ':$1'), async (c) => {
      const request = c.req.raw;
      const principal = route.open ? NOBODY : await authenticate(deps.authenticate, request);
      if (principal.readOnly === true && route.method !== 'get') throw new ForbiddenError('This token may only read.');
      const limit = deps.limits.maxBodyBytes;
      const body =
        route.body === undefined
          ? undefined
          : route.bodyOptional
            ? await readOptionalJsonBody(request, limit, requestSchemas[route.body])
            : await readJsonBody(request, limit, requestSchemas[route.body]);
      return route.handle({
        request,
        params: c.req.param() as Record<string, string>,
        query: new URL(request.url).searchParams,
        principal,
        body,
      });
    });
  }
  app.notFound((c) => errorResponse(new NotFoundError('route', `${c.req.method} ${new URL(c.req.url).pathname}`), deps.log));
  app.onError((error) => errorResponse(error, deps.log));
  return async (request) => app.fetch(request);
}

async function authenticate(hook: Authenticate, request: Request): Promise<Principal> {
  const found = await hook(request);
  if (found === null || found === undefined) throw new UnauthorizedError();
  return checkPrincipal(found);
}

function errorResponse(error: unknown, log: AppDeps['log']): Response {
  if (ServerError.isInstance(error)) {
    return json({ error: { kind: error.kind, message: error.message, ...error.details() } }, error.status, error.headers());
  }
  if (IndusagiError.isInstance(error) && BAD_INPUT.has(error.kind))
    return json({ error: { kind: 'bad_request', message: error.message } }, 400);
  if (IndusagiError.isInstance(error) && UNAVAILABLE.has(error.kind)) {
    log('a request failed: the database is unavailable', error);
    return json({ error: { kind: 'unavailable', message: 'The database is unavailable; try again.' } }, 503, { 'retry-after': '5' });
  }
  log('a request failed', error);
  return json({ error: { kind: 'internal', message: 'Internal error' } }, 500);
}
