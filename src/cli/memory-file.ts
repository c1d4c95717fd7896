import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IndusagiError } from '../errors/index.js';
import { createMemoryStore, type MemoryRecord, type MemoryStore } from '../memory/index.js';

/** The command's memory file holds a line it cannot read; nothing was loaded or changed. */
export class MemoryFileError extends IndusagiError {
  static override readonly errorName: string = 'MemoryFileError';
  constructor(readonly path: string, readonly line: number, detail: string) {
    super('memory_file', `${path}:${line}: ${detail}`);
  }
}

type Entry = { op: 'save'; record: MemoryRecord } | { op: 'forget'; id: string };

/**
 * The in-process memory store, made to outlive the process: the file is an append-only log of
 * saves and forgets, replayed into `createMemoryStore` at start, so search and ranking stay the
 * memory module's. Each change is appended before the call resolves.
 */
export async function openMemoryFile(path: string): Promise<MemoryStore> {
  const store = createMemoryStore(await replay(path));
  const log = async (entry: Entry) => {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(entry)}\n`, 'utf8');
  };
  return {
    async save(text, opts) {
      const record = await store.save(text, opts);
      await log({ op: 'save', record });
      return record;
    },
    search: (query, opts) => store.search(query, opts),
    async forget(id) {
      const removed = await store.forget(id);
      if (removed) await log({ op: 'forget', id });
      return removed;
    },
    all: () => store.all!(),
  };
}

async function replay(path: string): Promise<MemoryRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines = text.split('\n');
  // A crash mid-append leaves a final line without its newline: that change never completed.
  if (!text.endsWith('\n')) lines.pop();
  const records = new Map<string, MemoryRecord>();
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const entry = parseEntry(line, path, i + 1);
    if (entry.op === 'save') records.set(entry.record.id, entry.record);
    else records.delete(entry.id);
  });
  return [...records.values()];
}

function parseEntry(line: string, path: string, number: number): Entry {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    throw new MemoryFileError(path, number, 'not JSON');
  }
  const e = entry as Partial<Record<string, unknown>>;
  if (e?.op === 'save' && typeof e.record === 'object' && e.record !== null) return entry as Entry;
  if (e?.op === 'forget' && typeof e.id === 'string') return entry as Entry;
  throw new MemoryFileError(path, number, 'expected {"op":"save","record":…} or {"op":"forget","id":…}');
}
