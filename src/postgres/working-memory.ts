// Working memory in PostgreSQL: one row per (tenant, scope), written only at the version its writer
// read. Each write is one statement, so the row lock PostgreSQL takes for it orders concurrent writers:
// the second re-reads the row the first committed, finds the version moved on, and changes nothing.

import { WorkingMemoryConflictError, type MemoryScope, type SetWorkingOptions, type WorkingMemory } from '../memory/index.js';
import { checkExpectedVersion, checkWorkingScope, encodeWorking, scopeKey, workingFromRow } from '../memory/working/index.js';
import type { PostgresDatabase } from './database.js';

/** The migration that added the table: working memory needs it, records do not. */
export const WORKING_VERSION = 10;

type WorkingRow = { content: string | null; version: number };

export async function getWorking(db: PostgresDatabase, t: string, scope: MemoryScope): Promise<WorkingMemory | undefined> {
  const { resource, session } = scopeKey(checkWorkingScope(scope));
  await db.requireVersion(WORKING_VERSION);
  const [row] = await db.query<WorkingRow>(
    `SELECT content, version::float8 AS version FROM ${db.s}.working_memory
     WHERE tenant = $1 AND scope_resource = $2 AND scope_session = $3`,
    [t, resource, session],
  );
  return workingFromRow(row);
}

export async function setWorking(
  db: PostgresDatabase,
  t: string,
  scope: MemoryScope,
  content: unknown,
  opts: SetWorkingOptions,
): Promise<WorkingMemory> {
  const { resource, session } = scopeKey(checkWorkingScope(scope));
  const expected = checkExpectedVersion(opts);
  const text = encodeWorking(content);
  await db.requireVersion(WORKING_VERSION);
  const table = `${db.s}.working_memory`;
  const key = [t, resource, session];
  // Version 0 creates the block, or fills a forgotten row (its version carries on); any other updates a live block at that version.
  const [written] =
    expected === 0
      ? await db.query<WorkingRow>(
          `INSERT INTO ${table} AS w (tenant, scope_resource, scope_session, content, version, updated_at) VALUES ($1, $2, $3, $4, 1, $5)
           ON CONFLICT (tenant, scope_resource, scope_session)
             DO UPDATE SET content = excluded.content, version = w.version + 1, updated_at = excluded.updated_at WHERE w.content IS NULL
           RETURNING content, version::float8 AS version`,
          [...key, text, Date.now()],
        )
      : await db.query<WorkingRow>(
          `UPDATE ${table} SET content = $4, version = version + 1, updated_at = $5
           WHERE tenant = $1 AND scope_resource = $2 AND scope_session = $3 AND content IS NOT NULL AND version = $6
           RETURNING content, version::float8 AS version`,
          [...key, text, Date.now(), expected],
        );
  if (written !== undefined) return workingFromRow(written)!;
  // What the block is at now, for the error: another writer may move it again before the caller retries.
  const [now] = await db.query<WorkingRow>(
    `SELECT content, version::float8 AS version FROM ${table} WHERE tenant = $1 AND scope_resource = $2 AND scope_session = $3`,
    key,
  );
  throw new WorkingMemoryConflictError(expected, now === undefined || now.content === null ? 0 : now.version);
}

export async function forgetWorking(db: PostgresDatabase, t: string, scope: MemoryScope): Promise<boolean> {
  const { resource, session } = scopeKey(checkWorkingScope(scope));
  await db.requireVersion(WORKING_VERSION);
  const gone = await db.query(
    `UPDATE ${db.s}.working_memory SET content = NULL, updated_at = $4
     WHERE tenant = $1 AND scope_resource = $2 AND scope_session = $3 AND content IS NOT NULL RETURNING 1`,
    [t, resource, session, Date.now()],
  );
  return gone.length > 0;
}
