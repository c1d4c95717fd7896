import { migratePostgres, type MigrateResult } from '../postgres/index.js';
import { loadGraphile } from './backend/postgres/worker.js';
import { connectionOf, schemasOf, type DatabaseOption } from './options.js';

/**
 * Sets up everything a server on PostgreSQL needs, once per deploy (what `indusagi db migrate` runs):
 * the tables (the stores' and the server's, one versioned list), then graphile-worker's job queue in
 * `jobSchema` (graphile-worker's own migrations). Servers and workers never migrate by themselves.
 */
export async function migrateServer(
  database: DatabaseOption,
  options: { schema?: string; jobSchema?: string } = {},
): Promise<{ tables: MigrateResult; jobSchema: string }> {
  const { schema, jobSchema } = schemasOf(options);
  const connection = connectionOf(database);
  const tables = await migratePostgres(connection, { schema });
  const graphile = await loadGraphile();
  await graphile.runMigrations({
    ...('pool' in connection ? { pgPool: connection.pool } : { connectionString: connection.connectionString }),
    schema: jobSchema,
  });
  return { tables, jobSchema };
}
