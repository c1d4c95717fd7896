import type BetterSqlite3 from 'better-sqlite3';
import { SqliteUnavailableError } from './errors.js';

export type Database = BetterSqlite3.Database;
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
