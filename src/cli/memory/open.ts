import { PostgresMemoryStore } from '../../postgres/index.js';
import type { GovernedMemoryStore } from '../../memory/index.js';
import { isDatabaseUrl } from '../args.js';
import { describeMemoryReport, openMemoryFile } from '../memory-file.js';

/** The store behind `--memory`, what opening it noticed (skipped lines of a file), and how to let it go. */
export type OpenedMemory = { store: GovernedMemoryStore; notes: string[]; close(): Promise<void> };

/**
 * `--memory` is a file (the default, `.indusagi/memory.jsonl`) or a PostgreSQL URL, whose schema
 * `indusagi db migrate --database URL` must have set up first; the store never migrates by itself.
 */
export async function openMemory(location: string): Promise<OpenedMemory> {
  if (isDatabaseUrl(location)) {
    const store = new PostgresMemoryStore({ connectionString: location });
    return { store, notes: [], close: () => store.close() };
  }
  const file = await openMemoryFile(location);
  return { store: file, notes: describeMemoryReport(location, file.report), close: async () => {} };
}
