// docs/server.md's routes table against the server's own OpenAPI document (GET /openapi.json): the table
// is what a reader calls the API by, so a route it lists must exist and one the server answers must be
// listed, and what a row says of a route (the body it takes, the statuses it answers, the shape and the
// status values of what it returns) must be what the document says (issue 41 item 4).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoModel } from '../../src/entries/testing.js';
import { bearerTokens, createServer, type AgentServer } from '../../src/server/index.js';

const DEMO = demoModel();

type Schema = {
  $ref?: string;
  type?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  enum?: string[];
  oneOf?: Schema[];
};
type Operation = {
  operationId: string;
  requestBody?: { content: { 'application/json': { schema: Schema } } };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

/** One row of the table: the routes of its first cell, the body shape it shows, and its description. */
type Row = { routes: string[]; body?: string; description: string; line: number };

const repo = resolve(import.meta.dirname, '../..');
let dir: string;
let server: AgentServer;
let document: Document;
let rows: Row[];

// `GET /threads/{id}?limit=` and `/threads/{threadId}` name one route: parameters are compared by place.
const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\?.*$/, '').replace(/\{\w+\}/g, '{}')}`;

/** The keys of a `{ a, b?, c: 1 }` shape, each with whether it is optional. */
function shapeKeys(shape: string): Map<string, boolean> {
  const inner = shape.trim().replace(/^\{/, '').replace(/\}$/, '');
  const keys = new Map<string, boolean>();
  // Only the top level: `{ decisions: [{ approvalId, ... }] }` names `decisions`.
  let depth = 0;
  let part = '';
  for (const char of `${inner},`) {
    if ('[{('.includes(char)) depth++;
    if (']})'.includes(char)) depth--;
    if (char === ',' && depth === 0) {
      const key = part.trim().match(/^(\w+)(\?)?/);
      if (key) keys.set(key[1], key[2] === '?');
      part = '';
    } else part += char;
  }
  return keys;
}

function resolveSchema(schema: Schema): Schema {
  return schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
}

function readTable(markdown: string): Row[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line === '## API');
  const table: Row[] = [];
  for (let i = start; i < lines.length && !(i > start && lines[i].startsWith('## ')); i++) {
    const cells = lines[i].match(/^\| (`.*?) \| (.*) \|$/);
    if (!cells) continue;
    const code = [...cells[1].matchAll(/`([^`]+)`/g)].map(([, text]) => text);
    table.push({
      routes: code.filter((text) => /^(GET|POST|PATCH|PUT|DELETE) \//.test(text)),
      body: code.find((text) => text.startsWith('{')),
      description: cells[2],
      line: i + 1,
    });
  }
  return table;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-server-routes-'));
  rows = readTable(await readFile(join(repo, 'docs/server.md'), 'utf8'));
  server = await createServer({
    dataDir: join(dir, 'data'),
    authenticate: bearerTokens([{ token: 'a-long-secret-token-of-ana', tenant: 'acme', user: 'ana' }]),
    // No run is started: the document is all this test reads.
    agent: () => ({ config: { model: DEMO.modelId! }, invokeModel: DEMO }),
  });
  document = (await (await server.fetch(new Request('http://localhost/openapi.json'))).json()) as Document;
});

afterAll(async () => {
  await server?.close(1_000);
  if (dir) await rm(dir, { recursive: true, force: true });
});

function operations(): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, methods] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(methods)) found.set(routeKey(method, path), operation);
  return found;
}

function documented(): Map<string, Row> {
  const found = new Map<string, Row>();
  for (const row of rows) for (const route of row.routes) found.set(routeKey(route.split(' ')[0], route.split(' ')[1]), row);
  return found;
}

describe('docs/server.md routes table', () => {
  it('lists every route of the OpenAPI document, and no other', () => {
    expect(rows.length).toBeGreaterThan(10);
    expect([...documented().keys()].sort()).toEqual([...operations().keys()].sort());
  });

  it("shows each route's body as the document takes it: its keys, and which are optional", () => {
    const problems: string[] = [];
    for (const [key, row] of documented()) {
      const operation = operations().get(key);
      if (!operation || row.body === undefined) continue;
      const schema = operation.requestBody && resolveSchema(operation.requestBody.content['application/json'].schema);
      if (!schema) {
        problems.push(`docs/server.md:${row.line}: ${key} takes no body, the row shows ${row.body}`);
        continue;
      }
      const required = new Set(schema.required ?? []);
      for (const [name, optional] of shapeKeys(row.body)) {
        if (!(name in (schema.properties ?? {}))) problems.push(`docs/server.md:${row.line}: ${key} takes no \`${name}\``);
        else if (optional === required.has(name))
          problems.push(`docs/server.md:${row.line}: ${key}'s \`${name}\` is ${required.has(name) ? 'required' : 'optional'}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names only statuses the document lists for the route', () => {
    const problems: string[] = [];
    for (const [key, row] of documented()) {
      const operation = operations().get(key);
      if (!operation) continue;
      // A status is a 2xx-5xx number standing alone (not "7 days", not "200,000" characters).
      for (const [, status] of row.description.matchAll(/(?<![\w,.])([2-5]\d\d)(?![\w,])/g))
        if (!(status in operation.responses)) problems.push(`docs/server.md:${row.line}: ${key} never answers ${status}`);
    }
    expect(problems).toEqual([]);
  });

  it('says what a route returns as the document does: the shape it opens with, and the status values it lists', () => {
    const problems: string[] = [];
    for (const [key, row] of documented()) {
      const operation = operations().get(key);
      if (!operation) continue;
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2'))?.[1];
      const schema = success?.content && resolveSchema(Object.values(success.content)[0].schema);
      // A row that opens with a shape says what the route answers: exactly the keys it always has.
      const opening = row.description.match(/^`(\{[^`]*\})`/)?.[1];
      if (opening !== undefined) {
        const keys = [...shapeKeys(opening).keys()].sort();
        const required = [...(schema?.required ?? [])].sort();
        if (JSON.stringify(keys) !== JSON.stringify(required))
          problems.push(`docs/server.md:${row.line}: ${key} answers { ${required.join(', ')} }, the row says ${opening}`);
      }
      // "status (`a`, `b`)": the values of the answer's `status`, or of the object it holds that has one.
      const listed = row.description.match(/status \(((?:`\w+`(?:, )?)+)\)/)?.[1];
      if (listed !== undefined) {
        const values = [...listed.matchAll(/`(\w+)`/g)].map(([, value]) => value).sort();
        const holders = [schema, ...Object.values(schema?.properties ?? {}).map(resolveSchema)];
        const status = holders.map((holder) => holder?.properties?.status?.enum).find((values) => values !== undefined);
        if (JSON.stringify(values) !== JSON.stringify([...(status ?? [])].sort()))
          problems.push(
            `docs/server.md:${row.line}: ${key}'s status is one of ${(status ?? []).join(', ')}, the row lists ${values.join(', ')}`,
          );
      }
    }
    expect(problems).toEqual([]);
  });
});
