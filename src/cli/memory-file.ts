import { mkdir, open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IndusagiError } from '../errors/index.js';
import { createMemoryStore, type Embedder, type GovernedMemoryStore, type MemoryRecord } from '../memory/index.js';
import { appendDurably, endsWithNewline, syncDirectory } from '../runtime/store/durable-append.js';
import { cachedEmbedder, vectorCachePath, type CachedEmbedder } from './memory-vectors.js';

/** The command's memory file holds a line it cannot read; nothing was loaded or changed. */
export class MemoryFileError extends IndusagiError {
  static override readonly errorName: string = 'MemoryFileError';
  constructor(
    readonly path: string,
    readonly line: number,
    detail: string,
  ) {
    super('memory_file', `${path}:${line}: ${detail}`);
  }
}

/** What the replay left out, as the session store reports a load: nothing skipped goes unmentioned. */
export type MemoryFileReport = {
  /** Lines that are not JSON (1-based), with why: the remains of writes cut short. */
  skipped: Array<{ line: number; reason: string }>;
  /** The file ended in a partial line (a write cut short by a crash); it is listed in `skipped` too. */
  tornTail: boolean;
};

export type MemoryFile = GovernedMemoryStore & {
  readonly report: MemoryFileReport;
  /** With an embedder: where the records' vectors are cached, and (once read) how many it holds. */
  readonly vectors?: CachedEmbedder['cache'];
};

type Entry = { op: 'save'; record: MemoryRecord } | { op: 'forget'; id: string };

/**
 * The in-process memory store, made to outlive the process: the file is an append-only log of
 * saves and forgets, replayed into `createMemoryStore` at start, so search, ranking and governance
 * stay the memory module's. A record's later state (edited, superseded) is logged as a save of the
 * whole record again; the replay keeps the last. Each change is appended and fsynced before the call resolves. A line that is not
 * JSON (left by a crash mid-append) is skipped and reported; a JSON line of an unknown shape is
 * refused, since it was written by something this version would misread.
 */
export async function openMemoryFile(path: string, opts: { embedder?: Embedder } = {}): Promise<MemoryFile> {
  const { records, report } = await replay(path);
  // With an embedder, the records' vectors come from a cache beside the file (see memory-vectors.ts):
  // the store asks for every record's vector before its first search, and only new texts reach the model.
  const embedder = opts.embedder === undefined ? undefined : cachedEmbedder(opts.embedder, vectorCachePath(path));
  embedder?.keep(records.map((r) => r.text));
  const store = createMemoryStore(records, { embedder });
  // Appends run one at a time, so each sees the tail the previous one left.
  let queue: Promise<void> = Promise.resolve();
  const log = (...entries: Entry[]): Promise<void> => {
    const appended = queue.then(() => append(path, entries));
    queue = appended.catch(() => undefined);
    return appended;
  };
  return {
    report,
    vectors: embedder?.cache,
    async save(text, opts) {
      if (typeof text === 'string') embedder?.keep([text]);
      const record = await store.save(text, opts);
      const retired = await Promise.all((record.supersedes ?? []).map((id) => store.get(id)));
      // One append: a crash cuts it after the new record at worst, leaving the old one current, not lost.
      await log({ op: 'save', record }, ...retired.map((r) => ({ op: 'save' as const, record: r! })));
      return record;
    },
    search: (query, opts) => store.search(query, opts),
    async forget(id, opts) {
      const removed = await store.forget(id, opts);
      if (removed) await log({ op: 'forget', id });
      return removed;
    },
    async update(id, edit, opts) {
      if (typeof edit?.text === 'string') embedder?.keep([edit.text]);
      const record = await store.update(id, edit, opts);
      if (record !== undefined) await log({ op: 'save', record });
      return record;
    },
    all: () => store.all(),
    get: (id, opts) => store.get(id, opts),
    list: (opts) => store.list(opts),
  };
}

async function append(path: string, entries: Entry[]): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  // 'a+': the tail is read back through the same handle the line is appended with.
  const file = await open(path, 'a+');
  let created: boolean;
  try {
    created = (await file.stat()).size === 0;
    // A line torn by a crash is closed off first, so this entry never glues onto it (the session store's rule).
    const separator = (await endsWithNewline(file)) ? '' : '\n';
    await appendDurably(file, Buffer.from(`${separator}${entries.map((entry) => `${JSON.stringify(entry)}\n`).join('')}`, 'utf8'));
  } finally {
    await file.close();
  }
  if (created) await syncDirectory(dirname(path));
}

async function replay(path: string): Promise<{ records: MemoryRecord[]; report: MemoryFileReport }> {
  const report: MemoryFileReport = { skipped: [], tornTail: false };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], report };
    throw error;
  }
  const lines = text.split('\n');
  const unterminated = !text.endsWith('\n');
  if (!unterminated) lines.pop();
  const records = new Map<string, MemoryRecord>();
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const number = i + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      const last = unterminated && i === lines.length - 1;
      report.tornTail ||= last;
      report.skipped.push({
        line: number,
        reason: last ? 'incomplete final line (a write cut short)' : 'not JSON (the remains of a write cut short)',
      });
      return;
    }
    const entry = asEntry(parsed, path, number);
    if (entry.op === 'save') records.set(entry.record.id, entry.record);
    else records.delete(entry.id);
  });
  return { records: [...records.values()], report };
}

function asEntry(value: unknown, path: string, number: number): Entry {
  const e = value as Partial<Record<string, unknown>> | null;
  if (e?.op === 'save' && typeof e.record === 'object' && e.record !== null) return value as Entry;
  if (e?.op === 'forget' && typeof e.id === 'string') return value as Entry;
  throw new MemoryFileError(path, number, 'expected {"op":"save","record":…} or {"op":"forget","id":…}');
}

/** One line per skipped line of the memory file, for the chat to show at start. */
export function describeMemoryReport(path: string, report: MemoryFileReport): string[] {
  return report.skipped.map(({ line, reason }) => `memory file ${path}: skipped line ${line}, ${reason}`);
}
