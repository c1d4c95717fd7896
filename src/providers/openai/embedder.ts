// OpenAI's embeddings endpoint (and any server speaking it: Azure OpenAI, vLLM, Ollama's /v1) as an
// indusagi embedder, through the official `openai` client the app already holds.
import { EmbedderConfigError, EmbedderOutputError, type Embedder } from '../../memory/embedder.js';

/** The part of an OpenAI client the embedder uses; `new OpenAI()` from `openai` 6 and 7 fits. */
export interface OpenAIEmbeddingsClientLike {
  embeddings: {
    create(
      body: { model: string; input: string[]; encoding_format: 'float'; dimensions?: number },
      options?: { signal?: AbortSignal },
    ): PromiseLike<{ data: Array<{ index: number; embedding: number[] | string }> }>;
  };
}

// The sizes OpenAI documents for its own models, so the common case needs no `dimensions`.
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export type OpenAIEmbedderOptions = {
  /** The vector size: required for a model not in OpenAI's list; for text-embedding-3-* also sent, shortening the vectors. */
  dimensions?: number;
  /** Most texts per request. Default 256 (the API takes 2048). */
  maxBatch?: number;
};

/** An embedder calling `client.embeddings.create` with `model`. */
export function openAIEmbedder(client: OpenAIEmbeddingsClientLike, model: string, options: OpenAIEmbedderOptions = {}): Embedder {
  if (typeof client?.embeddings?.create !== 'function')
    throw new EmbedderConfigError('openAIEmbedder needs an OpenAI client (an object with embeddings.create), e.g. new OpenAI().');
  if (typeof model !== 'string' || model === '')
    throw new EmbedderConfigError('openAIEmbedder needs a model name, e.g. "text-embedding-3-small".');
  const dimensions = options.dimensions ?? KNOWN_DIMENSIONS[model];
  if (dimensions === undefined)
    throw new EmbedderConfigError(`openAIEmbedder does not know how many dimensions ${model} returns; pass { dimensions }.`);
  // Only the text-embedding-3 models accept a `dimensions` parameter; the others would refuse the request.
  const send = options.dimensions !== undefined && model.startsWith('text-embedding-3') ? options.dimensions : undefined;
  const id = `openai:${model}${send === undefined ? '' : `@${send}`}`;
  return {
    id,
    dimensions,
    maxBatch: options.maxBatch ?? 256,
    async embed(texts, { signal }) {
      const body = { model, input: texts, encoding_format: 'float' as const, ...(send === undefined ? {} : { dimensions: send }) };
      const reply = await client.embeddings.create(body, { signal });
      if (!Array.isArray(reply?.data)) throw new EmbedderOutputError(`${id} answered without a data list.`);
      const out: Array<number[] | undefined> = Array.from({ length: texts.length }, () => undefined);
      for (const item of reply.data) {
        if (!Number.isInteger(item.index) || item.index < 0 || item.index >= texts.length || out[item.index] !== undefined)
          throw new EmbedderOutputError(`${id} answered with an embedding at index ${String(item.index)} for ${texts.length} texts.`);
        if (!Array.isArray(item.embedding)) throw new EmbedderOutputError(`${id} answered with a non-float embedding.`);
        out[item.index] = item.embedding;
      }
      if (out.some((v) => v === undefined))
        throw new EmbedderOutputError(`${id} answered with ${reply.data.length} embeddings for ${texts.length} texts.`);
      return out as number[][];
    },
  };
}
