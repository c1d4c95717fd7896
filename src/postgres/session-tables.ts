import type { PostgresDatabase } from './database.js';
import type { SessionSql } from './session-sql.js';

/** Where one `PostgresSessionStore`'s sessions live: its database, its statements, and its tenant (`''` for the default tenant). */
export type SessionTables = { db: PostgresDatabase; sql: SessionSql; t: string };
