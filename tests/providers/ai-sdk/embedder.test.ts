// fromAiSdkEmbedding drives a real AI SDK provider (`@ai-sdk/openai`) against a loopback embeddings server.
import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fromAiSdkEmbedding } from '../../../src/providers/ai-sdk/index.js';
import { createMemoryStore, EmbedderConfigError, EmbedderOutputError } from '../../../src/memory/index.js';
import { startEmbeddingsServer } from '../../support/embeddings-server.js';
import type { LoopbackServer } from '../../../src/testing/loopback.js';
import type { EmbeddingScript } from '../../support/embeddings-server.js';

let server: LoopbackServer<EmbeddingScript>;
const openai = () => createOpenAI({ baseURL: `${server.origin}/v1`, apiKey: 'test-key' });

beforeEach(async () => {
  server = await startEmbeddingsServer(32);
});
afterEach(() => server.close());

describe('fromAiSdkEmbedding', () => {
  it('embeds through the provider and ranks a record that shares only a rarely seen word', async () => {
    const embedder = fromAiSdkEmbedding(openai().embedding('text-embedding-3-small'), { dimensions: 32 });
    expect(embedder.id).toBe('openai.embedding:text-embedding-3-small');
    const store = createMemoryStore(undefined, { embedder });
    await store.save('Caroline went to the pottery class on Sunday');
    await store.save('Melanie painted a sunrise');
    const [hit] = await store.search('pottery', { k: 1, ranking: 'vector' });
    expect(hit.text).toBe('Caroline went to the pottery class on Sunday');
    expect(server.requests.at(-1)!.body).toMatchObject({ model: 'text-embedding-3-small', input: ['pottery'] });
  });

  it('needs the model object, a known specification and the dimensions, and checks the answer against them', async () => {
    expect(() => fromAiSdkEmbedding('text-embedding-3-small' as never, { dimensions: 32 })).toThrow(EmbedderConfigError);
    expect(() => fromAiSdkEmbedding(openai().embedding('m'), {} as never)).toThrow(/dimensions/);
    const wrong = fromAiSdkEmbedding(openai().embedding('m'), { dimensions: 16 });
    await expect(createMemoryStore(undefined, { embedder: wrong }).save('x')).rejects.toThrow(EmbedderOutputError);
  });
});
