// The memory file's vectors, kept beside it so a chat does not embed every remembered fact again at
// each start: the file store is replayed into `createMemoryStore`, which embeds every record it was
// seeded with before its first search. This embedder answers those texts from a cache file and asks
// the real one only for texts it has never seen, so the model loads only when something new is
// embedded (a save, an edit, a search query), never to read back what it made before.
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Embedder } from '../memory/index.js';

/** An embedder that reads kept texts' vectors from a cache file, and what it holds. */
export type CachedEmbedder = Embedder & {
  /** Texts whose vectors are worth keeping on disk (the records' texts, not search queries). */
  keep(texts: Iterable<string>): void;
  /** The cache file, and after the first embed how many vectors it held and how many lines it skipped. */
  readonly cache: { path: string; vectors?: number; skipped?: number };
};

// A cache holding this many more stale vectors (texts no record has any more) than live ones is
// rewritten with the live ones only when it is read.
const STALE_SLACK = 1_000;

/** `.indusagi/memory.jsonl` keeps its vectors in `.indusagi/memory.vectors.jsonl`. */
export function vectorCachePath(memoryFile: string): string {
  return memoryFile.endsWith('.jsonl') ? `${memoryFile.slice(0, -'.jsonl'.length)}.vectors.jsonl` : `${memoryFile}.vectors.jsonl`;
}

/**
 * `inner` with a cache at `path`: a JSON-lines file whose first line names the embedder (`{ id,
 * dimensions }`) and each other line one vector (`{ h, v }`: the text's SHA-256, the float32 bytes in
 * base64). The file is read on the first `embed`, not before. A cache of another embedder is started
 * over; a line that does not parse (a write cut short) is skipped, its vector made again when asked.
 * Only texts given to `keep` are cached.
 */
export function cachedEmbedder(inner: Embedder, path: string): CachedEmbedder {
  const kept = new Set<string>();
  const vectors = new Map<string, Float32Array>();
  const cache: CachedEmbedder['cache'] = { path };
  let loaded: Promise<void> | undefined;
  // Appends one at a time, so lines never interleave within this process.
  let writes: Promise<void> = Promise.resolve();
  const header = `${JSON.stringify({ id: inner.id, dimensions: inner.dimensions })}\n`;

  const load = async (): Promise<void> => {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      text = '';
    }
    const lines = text.split('\n');
    let skipped = 0;
    if (lines[0] === header.trimEnd()) {
      for (const line of lines.slice(1)) {
        if (line === '') continue;
        const vector = parseLine(line, inner.dimensions);
        if (vector === undefined) skipped++;
        else vectors.set(vector.h, vector.v);
      }
    }
    const stale = [...vectors.keys()].filter((h) => !kept.has(h)).length;
    if (lines[0] !== header.trimEnd() || stale > vectors.size - stale + STALE_SLACK) {
      // Another embedder's cache, or one mostly of forgotten texts: rewritten whole (to a temporary
      // file first, so a crash leaves the old one or the new one).
      for (const h of [...vectors.keys()]) if (!kept.has(h)) vectors.delete(h);
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, header + [...vectors].map(([h, v]) => formatLine(h, v)).join(''));
      await rename(temporary, path);
    }
    cache.vectors = vectors.size;
    cache.skipped = skipped;
  };

  return {
    id: inner.id,
    dimensions: inner.dimensions,
    maxBatch: inner.maxBatch,
    cache,
    keep(texts) {
      for (const text of texts) kept.add(digest(text));
    },
    async embed(texts, opts) {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      await loaded;
      const hashes = texts.map(digest);
      // Each text not cached yet, once, with its hash (already made above).
      const unseen = new Map<string, string>();
      texts.forEach((text, i) => {
        if (!vectors.has(hashes[i])) unseen.set(text, hashes[i]);
      });
      const missing = [...unseen.keys()];
      if (missing.length > 0) {
        const made = await inner.embed(missing, opts);
        // A wrong answer goes back as it came, for the store's checks to refuse; nothing is cached from it.
        if (!Array.isArray(made) || made.length !== missing.length) return made;
        const fresh: string[] = [];
        const byText = new Map<string, Float32Array | readonly number[]>();
        missing.forEach((text, i) => byText.set(text, made[i]));
        const answer = texts.map((text, i) => vectors.get(hashes[i]) ?? byText.get(text)!);
        missing.forEach((text, i) => {
          const h = unseen.get(text)!;
          const vector = Float32Array.from(made[i]);
          if (!kept.has(h) || vector.length !== inner.dimensions || !vector.every(Number.isFinite)) return;
          vectors.set(h, vector);
          fresh.push(formatLine(h, vector));
        });
        if (fresh.length > 0) {
          const write = writes.then(() => appendFile(path, fresh.join('')));
          writes = write.catch(() => undefined);
          await write;
          cache.vectors = vectors.size;
        }
        return answer;
      }
      return hashes.map((h) => vectors.get(h)!);
    },
  };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

function formatLine(h: string, v: Float32Array): string {
  return `${JSON.stringify({ h, v: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') })}\n`;
}

function parseLine(line: string, dimensions: number): { h: string; v: Float32Array } | undefined {
  let parsed: { h?: unknown; v?: unknown };
  try {
    parsed = JSON.parse(line) as { h?: unknown; v?: unknown };
  } catch {
    return undefined;
  }
  if (typeof parsed?.h !== 'string' || typeof parsed.v !== 'string') return undefined;
  const bytes = Buffer.from(parsed.v, 'base64');
  if (bytes.length !== dimensions * 4) return undefined;
  // Copied out: a Buffer may sit at an offset of a shared pool that is not 4-byte aligned.
  const v = new Float32Array(dimensions);
  new Uint8Array(v.buffer).set(bytes);
  return v.every(Number.isFinite) ? { h: parsed.h, v } : undefined;
}
