import { IndusagiError } from '../errors/index.js';

/** `better-sqlite3` (an optional peer dependency) is not installed or its native build does not load. */
export class SqliteUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'SqliteUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super(
      'sqlite_unavailable',
      'The SQLite memory store needs the optional peer dependency better-sqlite3 (12.x), which could not be loaded. Install it with `npm install better-sqlite3`.',
      options,
    );
  }
}

/** `sqlite-vec` (an optional peer dependency) is not installed or its extension does not load into SQLite. */
export class SqliteVecUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'SqliteVecUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super(
      'sqlite_vec_unavailable',
      'The SQLite memory store keeps vectors with the optional peer dependency sqlite-vec (0.1.9), which could not be loaded. Install it with `npm install sqlite-vec@0.1.9`, or open the store without an embedder.',
      options,
    );
  }
}

/** An embedder as a memory file records it: what its vectors came from. */
export type EmbedderIdentity = { id: string; dimensions: number };

/**
 * The file keeps vectors from one embedder and the store was opened with another (a different id or
 * size): comparing vectors of two models ranks nonsense, so the store refuses to open unless told to
 * re-embed every record (`{ reembed: true }`).
 */
export class SqliteEmbedderMismatchError extends IndusagiError {
  static override readonly errorName: string = 'SqliteEmbedderMismatchError';
  constructor(
    path: string,
    /** The embedder the file's vectors came from. */
    readonly recorded: EmbedderIdentity,
    /** The embedder the store was opened with. */
    readonly given: EmbedderIdentity,
  ) {
    super(
      'sqlite_embedder_mismatch',
      `${path} keeps vectors from embedder "${recorded.id}" (${recorded.dimensions} dimensions), not "${given.id}" (${given.dimensions} dimensions). ` +
        `Open it with "${recorded.id}", or pass { reembed: true } to replace every vector with one from "${given.id}".`,
    );
  }
}

/** The database file cannot be opened as a memory store, or holds rows this version cannot read. */
export class SqliteMemoryFileError extends IndusagiError {
  static override readonly errorName: string = 'SqliteMemoryFileError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('sqlite_memory_file', message, options);
  }
}

/** SQLite could not read or write the file for a reason other than damage: disk full, I/O error, busy, read-only. */
export class SqliteMemoryIoError extends IndusagiError {
  static override readonly errorName = 'SqliteMemoryIoError';
  constructor(
    message: string,
    /** SQLite's extended result code, e.g. `SQLITE_FULL`. */
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super('sqlite_memory_io', message, options);
  }
}

// Closed-store errors are the same for every durable store; the class lives with the memory types.
export { MemoryStoreClosedError } from '../memory/errors.js';
