import { PostgresMemoryStore } from '../../postgres/index.js';
import type { GovernedMemoryStore } from '../../memory/index.js';
import { isDatabaseUrl } from '../args.js';
import { describeMemoryReport, openMemoryFile } from '../memory-file.js';
import { chooseEmbedding, type Resolve } from './embedding.js';
import type { EmbedderFlag } from '../embedder-flag.js';

/**
 * The store behind `--memory`, what opening it noticed (skipped lines of a file), how it recalls
 * (`embedding`: the embedder or words only, the line `/memory` shows), and how to let it go.
 */
export type OpenedMemory = {
  store: GovernedMemoryStore;
  notes: string[];
  /** Where the memory is and how it recalls, one line each, for `/memory`. */
  describe(): string[];
  close(): Promise<void>;
};

export type OpenMemoryOptions = {
  /** `--embedder`; default `none` (the memory commands list and edit records, they never rank them). */
  embedder?: EmbedderFlag;
  /** How installed packages are found (tests); default Node's resolution from here. */
  resolve?: Resolve;
};

/**
 * `--memory` is a file (the default, `.indusagi/memory.jsonl`) or a PostgreSQL URL, whose schema
 * `indusagi db migrate --database URL` must have set up first; the store never migrates by itself.
 */
export async function openMemory(location: string, opts: OpenMemoryOptions = {}): Promise<OpenedMemory> {
  const postgres = isDatabaseUrl(location);
  const { embedder, status } = chooseEmbedding(opts.embedder ?? 'none', postgres ? 'postgres' : 'file', opts.resolve);
  if (postgres) {
    const store = new PostgresMemoryStore({ connectionString: location }, { embedder });
    // The URL's password is not shown.
    const where = location.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
    return { store, notes: [], describe: () => [`memory: ${where}`, `recall: ${status}`], close: () => store.close() };
  }
  const file = await openMemoryFile(location, { embedder });
  const describe = () => {
    const lines = [`memory: ${location}`, `recall: ${status}`];
    const cache = file.vectors;
    if (cache !== undefined)
      lines.push(
        cache.vectors === undefined
          ? `vectors: ${cache.path} (read on the first search, when the model loads)`
          : `vectors: ${cache.vectors} cached in ${cache.path}${cache.skipped ? `, ${cache.skipped} damaged lines skipped` : ''}`,
      );
    return lines;
  };
  return { store: file, notes: describeMemoryReport(location, file.report), describe, close: async () => {} };
}
