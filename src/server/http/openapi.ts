import type { RouteSpec } from './route.js';
import { requestSchemas, responseSchemas } from './schemas.js';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The OpenAPI 3.1 document of `routes`, built from the same specs the app registers. */
export function openApiDocument(routes: readonly RouteSpec[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses)) {
      responses[status] = {
        description: response.description,
        ...(response.stream !== undefined && {
          content: { 'text/event-stream': { schema: response.schema === undefined ? { type: 'string' } : ref(response.schema) } },
        }),
        ...(response.stream === undefined &&
          response.schema !== undefined && { content: { 'application/json': { schema: ref(response.schema) } } }),
      };
    }
    if (!route.open) {
      responses['401'] ??= { description: 'No credentials, or unknown ones.', content: { 'application/json': { schema: ref('Error') } } };
      if (route.method !== 'get')
        responses['403'] ??= { description: 'A read-only token.', content: { 'application/json': { schema: ref('Error') } } };
    }
    if (route.body !== undefined) {
      responses['400'] ??= {
        description: 'The body is not what this route takes.',
        content: { 'application/json': { schema: ref('Error') } },
      };
      responses['413'] ??= { description: 'The body is over the limit.', content: { 'application/json': { schema: ref('Error') } } };
    }
    (paths[route.path] ??= {})[route.method] = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      ...(route.description !== undefined && { description: route.description }),
      ...(route.open && { security: [] }),
      parameters: [...pathParams, ...(route.params ?? []).map((p) => ({ ...p, required: false }))],
      ...(route.body !== undefined && {
        requestBody: { required: route.bodyOptional !== true, content: { 'application/json': { schema: ref(route.body) } } },
      }),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'indusagi agent server',
      version: '1',
      description:
        'Threads (conversations), runs (background, waiting or streamed over SSE, resumable with Last-Event-ID from any instance), approvals, cancel, memory, and the AI SDK UI message stream for useChat. See docs/server.md.',
    },
    security: [{ bearer: [] }],
    tags: [
      { name: 'threads', description: 'Conversations: one session each.' },
      { name: 'runs', description: 'What a thread does: a prompt, decisions on waiting calls, continue.' },
      { name: 'memory', description: "The tenant's long-term memory, per user." },
      { name: 'chat', description: 'The AI SDK UI message stream, for useChat.' },
      { name: 'server', description: 'Health and this document.' },
    ],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { ...requestSchemas, ...responseSchemas },
    },
  };
}
