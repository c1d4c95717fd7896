// openAIEmbedder drives the real `openai` client against a loopback server speaking the embeddings wire format.
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openAIEmbedder } from '../../../src/providers/openai/index.js';
import { createMemoryStore, EmbedderConfigError, EmbedderOutputError } from '../../../src/memory/index.js';
import { startEmbeddingsServer, wordVector } from '../../support/embeddings-server.js';
import type { LoopbackServer } from '../../../src/testing/loopback.js';
import type { EmbeddingScript } from '../../support/embeddings-server.js';

let server: LoopbackServer<EmbeddingScript>;
const client = () => new OpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test-key', maxRetries: 0 });

beforeEach(async () => {
  server = await startEmbeddingsServer(64);
});
afterEach(() => server.close());

describe('openAIEmbedder', () => {
  it('sends the texts in batches with the model and float encoding, and returns one vector per text in order', async () => {
    const embedder = openAIEmbedder(client(), 'local-model', { dimensions: 64, maxBatch: 2 });
    expect(embedder).toMatchObject({ id: 'openai:local-model', dimensions: 64 });
    const store = createMemoryStore(undefined, { embedder });
    await store.save('the cat sat on the mat');
    await store.save('stock prices fell sharply');
    await store.save('a kitten purrs');
    expect(server.requests.map((r) => r.body.input)).toEqual([
      ['the cat sat on the mat'],
      ['stock prices fell sharply'],
      ['a kitten purrs'],
    ]);
    expect(server.requests[0].body).toMatchObject({ model: 'local-model', encoding_format: 'float' });
    expect(server.requests[0].body.dimensions).toBeUndefined();
    const vectors = await embedder.embed(['one', 'two', 'three'], {});
    expect(vectors.map((v) => [...v])).toEqual(['one', 'two', 'three'].map((t) => wordVector(t, 64)));
  });

  it('knows the sizes of OpenAI models, sends dimensions to text-embedding-3 only when asked, and refuses an unknown size', () => {
    expect(openAIEmbedder(client(), 'text-embedding-3-small').dimensions).toBe(1536);
    expect(openAIEmbedder(client(), 'text-embedding-3-large', { dimensions: 256 })).toMatchObject({
      dimensions: 256,
      id: 'openai:text-embedding-3-large@256',
    });
    expect(() => openAIEmbedder(client(), 'nomic-embed-text')).toThrow(EmbedderConfigError);
    expect(() => openAIEmbedder({} as never, 'text-embedding-3-small')).toThrow(EmbedderConfigError);
  });

  it('rejects an answer with missing, duplicated or wrongly sized embeddings, and passes an HTTP error through', async () => {
    const embedder = openAIEmbedder(client(), 'local-model', { dimensions: 64 });
    server.enqueue({ raw: { object: 'list', data: [{ index: 0, embedding: [1, 2] }] } });
    const store = createMemoryStore(undefined, { embedder });
    await expect(store.save('a fact')).rejects.toThrow(EmbedderOutputError);
    expect(await store.all()).toEqual([]);
    server.enqueue({ raw: { object: 'list', data: [] } });
    await expect(embedder.embed(['x'], {})).rejects.toThrow(EmbedderOutputError);
    server.enqueue({
      raw: {
        object: 'list',
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
    });
    await expect(embedder.embed(['x', 'y'], {})).rejects.toThrow(EmbedderOutputError);
    server.enqueue({ status: 401, message: 'Incorrect API key provided' });
    await expect(store.save('a fact')).rejects.toThrow(/Incorrect API key/);
    expect(await store.all()).toEqual([]);
  });
});
