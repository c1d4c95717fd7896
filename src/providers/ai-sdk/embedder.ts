// Any AI SDK embedding model (`openai.embedding(...)`, Cohere, Voyage, Mistral, Ollama...) as an
// indusagi embedder: the provider package does the HTTP, this only adapts the call.
import { EmbedderConfigError, EmbedderOutputError, type Embedder } from '../../memory/embedder.js';

/** The part of an AI SDK embedding model (specification v2, v3 or v4) the adapter uses. */
export interface AiSdkEmbeddingModel {
  readonly specificationVersion: string;
  readonly provider: string;
  readonly modelId: string;
  readonly maxEmbeddingsPerCall?: PromiseLike<number | undefined> | number | undefined;
  doEmbed(options: { values: string[]; abortSignal?: AbortSignal; dimensions?: number }): PromiseLike<{ embeddings: number[][] }>;
}

const VERSIONS = ['v2', 'v3', 'v4'];

/**
 * An embedder over `model`. The AI SDK does not say how long a model's vectors are, so `dimensions`
 * is required: the store sizes its vector index from it, and every answer is checked against it.
 */
export function fromAiSdkEmbedding(model: AiSdkEmbeddingModel, options: { dimensions: number; maxBatch?: number }): Embedder {
  if (typeof model === 'string')
    throw new EmbedderConfigError(`got the model id "${model}"; pass the provider's embedding model, e.g. openai.embedding("${model}").`);
  if (typeof model?.doEmbed !== 'function') throw new EmbedderConfigError('expected an AI SDK embedding model (an object with doEmbed).');
  if (!VERSIONS.includes(model.specificationVersion))
    throw new EmbedderConfigError(
      `the embedding model implements specification ${JSON.stringify(model.specificationVersion)}; fromAiSdkEmbedding speaks ${VERSIONS.join(', ')}.`,
    );
  if (!Number.isInteger(options?.dimensions) || options.dimensions < 1)
    throw new EmbedderConfigError('fromAiSdkEmbedding needs { dimensions }: the length of the vectors the model returns.');
  const limit =
    typeof model.maxEmbeddingsPerCall === 'number' && Number.isFinite(model.maxEmbeddingsPerCall) ? model.maxEmbeddingsPerCall : undefined;
  const id = `${model.provider}:${model.modelId}`;
  return {
    id,
    dimensions: options.dimensions,
    maxBatch: Math.min(options.maxBatch ?? 256, limit ?? Infinity),
    async embed(texts, { signal }) {
      const reply = await model.doEmbed({ values: texts, abortSignal: signal });
      if (!Array.isArray(reply?.embeddings)) throw new EmbedderOutputError(`${id} answered without embeddings.`);
      return reply.embeddings;
    },
  };
}
