// The embedder seam: a function from texts to vectors, like the model seam is a function from turns
// to a reply. Stores and recall only ever call it through `embedTexts`, which checks what came back, so
// a provider that answers with the wrong number of vectors or a NaN fails loudly instead of filling an
// index with vectors that rank nonsense.
import { IndusagiError } from '../errors/index.js';

/** Anything that turns texts into vectors of a fixed size: a local model, an AI SDK model, an HTTP API. */
export interface Embedder {
  /** Names the model (and its settings) the vectors come from; vectors of another id are never compared. */
  readonly id: string;
  /** The length of every vector `embed` returns. */
  readonly dimensions: number;
  /** Most texts one `embed` call takes; larger batches are split. Default 64. */
  readonly maxBatch?: number;
  /** One vector per text, in the texts' order. */
  embed(texts: string[], opts: { signal?: AbortSignal }): Promise<ReadonlyArray<Float32Array | readonly number[]>>;
}

/** An embedder that cannot be used as given (no id, bad dimensions, a missing optional package). */
export class EmbedderConfigError extends IndusagiError {
  static override readonly errorName: string = 'EmbedderConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('embedder_config', message, options);
  }
}

/** An embedder answered with something other than one finite vector of its dimensions per text. */
export class EmbedderOutputError extends IndusagiError {
  static override readonly errorName: string = 'EmbedderOutputError';
  constructor(message: string) {
    super('embedder_output', message);
  }
}

const DEFAULT_BATCH = 64;

/** Throws `EmbedderConfigError` unless `value` has the shape of an `Embedder`. */
export function checkEmbedder(value: unknown): Embedder {
  const e = value as Partial<Embedder> | null;
  if (typeof e !== 'object' || e === null || typeof e.embed !== 'function')
    throw new EmbedderConfigError('embedder must be an object with id, dimensions and embed(texts, { signal }).');
  if (typeof e.id !== 'string' || e.id === '') throw new EmbedderConfigError('embedder.id must be a non-empty string.');
  if (!Number.isInteger(e.dimensions) || e.dimensions! < 1)
    throw new EmbedderConfigError(`embedder.dimensions must be a whole number >= 1, got ${String(e.dimensions)}.`);
  if (e.maxBatch !== undefined && (!Number.isInteger(e.maxBatch) || e.maxBatch < 1))
    throw new EmbedderConfigError(`embedder.maxBatch must be a whole number >= 1, got ${String(e.maxBatch)}.`);
  return e as Embedder;
}

/**
 * Embeds `texts` in batches and returns unit-length vectors (so a dot product is the cosine), each
 * checked: one per text, `dimensions` long, every component finite, not all zero.
 */
export async function embedTexts(embedder: Embedder, texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  const batch = embedder.maxBatch ?? DEFAULT_BATCH;
  for (let start = 0; start < texts.length; start += batch) {
    signal?.throwIfAborted();
    const part = texts.slice(start, start + batch);
    const vectors = await embedder.embed(part, { signal });
    if (!Array.isArray(vectors) || vectors.length !== part.length)
      throw new EmbedderOutputError(
        `embedder ${embedder.id} returned ${Array.isArray(vectors) ? vectors.length : typeof vectors} vectors for ${part.length} texts.`,
      );
    vectors.forEach((v, i) => out.push(unit(embedder, v, start + i)));
  }
  return out;
}

function unit(embedder: Embedder, raw: unknown, index: number): Float32Array {
  const where = `embedder ${embedder.id}, vector ${index}`;
  if (!(raw instanceof Float32Array) && !Array.isArray(raw)) throw new EmbedderOutputError(`${where} is not an array of numbers.`);
  const values = raw as ArrayLike<number>;
  if (values.length !== embedder.dimensions)
    throw new EmbedderOutputError(`${where} has ${values.length} dimensions; the embedder declares ${embedder.dimensions}.`);
  let norm = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new EmbedderOutputError(`${where} holds ${String(x)} at ${i}.`);
    norm += x * x;
  }
  if (norm === 0) throw new EmbedderOutputError(`${where} is all zeros; it has no direction to compare.`);
  const scale = 1 / Math.sqrt(norm);
  const v = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) v[i] = values[i] * scale;
  return v;
}

/** The cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array, offset = 0): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[offset + i];
  return sum;
}
