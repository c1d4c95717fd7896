// A loopback stand-in for OpenAI's embeddings endpoint (POST /v1/embeddings), speaking its wire
// format, so the real `openai` client and the real `@ai-sdk/openai` provider are driven end to end.
// By default each input gets a deterministic bag-of-words vector (one dimension per hashed word), so
// texts sharing words point the same way; a script may instead answer with a raw body or an error.
import type { ServerResponse } from 'node:http';
import { startLoopbackServer, type LoopbackServer } from '../../src/testing/loopback.js';

export type EmbeddingScript = { dimensions: number } | { raw: unknown } | { status: number; message: string };

/** A unit-less bag-of-words vector: each word adds 1 to the dimension its hash picks. */
export function wordVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
    v[(h >>> 0) % dimensions] += 1;
  }
  // `some`, not `every`: TS would narrow `v` to `0[]` through the inferred predicate `x === 0`.
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

export async function startEmbeddingsServer(dimensions = 64): Promise<LoopbackServer<EmbeddingScript>> {
  const server = await startLoopbackServer<EmbeddingScript>({
    name: 'embeddings',
    routes: (method, path) => method === 'POST' && path === '/v1/embeddings',
    error: (res: ServerResponse, status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
    },
    async answer(res, record, script) {
      if ('status' in script) {
        res.writeHead(script.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: script.message, type: 'invalid_request_error', code: null } }));
        return;
      }
      const input: string[] = Array.isArray(record.body.input) ? record.body.input : [record.body.input];
      const body =
        'raw' in script
          ? script.raw
          : {
              object: 'list',
              model: record.body.model,
              data: input.map((text, index) => ({ object: 'embedding', index, embedding: wordVector(text, script.dimensions) })),
              usage: { prompt_tokens: input.length, total_tokens: input.length },
            };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
  });
  server.respond(() => ({ dimensions }));
  return server;
}
