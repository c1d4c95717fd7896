import { checkConnection, type PostgresConnection } from './driver.js';
import { checkSchemaName, PostgresDatabase, type MigrateResult } from './database.js';

/**
 * Brings `schema` (default `indusagi`) to the newest version this release knows, for every store at
 * once: what `indusagi db migrate` runs. Applies only what is missing, in one transaction, one
 * migrator at a time; a second run applies nothing.
 */
export async function migratePostgres(connection: PostgresConnection, opts: { schema?: string } = {}): Promise<MigrateResult> {
  const db = new PostgresDatabase(checkConnection(connection), checkSchemaName(opts.schema), 0);
  try {
    return await db.migrate();
  } finally {
    await db.close();
  }
}
