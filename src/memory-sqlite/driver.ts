import type BetterSqlite3 from 'better-sqlite3';
import { SqliteMemoryFileError, SqliteMemoryIoError, SqliteUnavailableError, SqliteVecUnavailableError } from './errors.js';

export type Database = BetterSqlite3.Database;
export type Statement<P extends unknown[] | object = unknown[], R = unknown> = BetterSqlite3.Statement<P, R>;
type DatabaseConstructor = typeof BetterSqlite3;

// Signs that the package is present but its native addon cannot load on this platform or Node version.
const BROKEN_BINDING = /Could not locate the bindings file|NODE_MODULE_VERSION|invalid ELF header|wrong ELF class/;

/**
 * Loads better-sqlite3 on demand. It is imported here and only here, so `indusagi` and
 * `indusagi/memory` work on machines where the native module is absent.
 */
export async function openDatabase(path: string): Promise<Database> {
  let Driver: DatabaseConstructor;
  try {
    Driver = (await import('better-sqlite3')).default;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new SqliteUnavailableError({ cause: error });
    throw error;
  }
  try {
    return new Driver(path);
  } catch (error) {
    if (BROKEN_BINDING.test((error as Error).message ?? '')) throw new SqliteUnavailableError({ cause: error });
    throw error;
  }
}

/**
 * Loads the sqlite-vec extension (its `vec0` tables hold the vectors) into `db`. Imported only when a
 * store is given an embedder, so a store without one never needs the package.
 */
export async function loadVectorExtension(db: Database): Promise<void> {
  let sqliteVec: typeof import('sqlite-vec');
  try {
    sqliteVec = await import('sqlite-vec');
  } catch (error) {
    throw new SqliteVecUnavailableError({ cause: error });
  }
  try {
    sqliteVec.load(db);
  } catch (error) {
    // The package is present but its platform build is missing or does not load into this SQLite.
    throw new SqliteVecUnavailableError({ cause: error });
  }
}

// Result codes that mean the bytes on disk are not a sound database, as opposed to a failed read or write.
const DAMAGE = /^SQLITE_(CORRUPT|NOTADB)/;

/**
 * The typed error for a failure better-sqlite3 raised while working on the file at `path` (its
 * `SqliteError` carries SQLite's result code); anything else is returned as it is.
 */
export function sqliteFailure(error: unknown, path: string): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error;
  const detail = (error as Error).message;
  if (DAMAGE.test(code)) {
    return new SqliteMemoryFileError(
      `${path} is damaged (${detail}); move it aside to start a new memory file, or restore it from a backup.`,
      { cause: error },
    );
  }
  return new SqliteMemoryIoError(`${path}: ${detail} (${code})`, code, { cause: error });
}
