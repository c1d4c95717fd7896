import { migratePostgres, type MigrateResult } from '../postgres/index.js';
import { loadGraphile, quietLogger } from './backend/postgres/worker.js';
import { connectionOf, defaultLog, schemasOf, type DatabaseOption } from './options.js';

/**
 * Sets up everything a server on PostgreSQL needs, once per deploy: the tables (the stores' and the
 * server's, one versioned list), then the job queue. Servers and workers never migrate by themselves.
 */
export async function migrateServer(
  database: DatabaseOption,
  options: { schema?: string; jobSchema?: string } = {},
): Promise<{ tables: MigrateResult; jobSchema: string }> {
  const { schema } = schemasOf(options);
  const tables = await migratePostgres(connectionOf(database), { schema });
  return { tables, ...(await migrateJobQueue(database, options)) };
}

/**
 * graphile-worker's own tables and functions in `jobSchema` (default `<schema>_jobs`), by its own
 * migrations; `JobQueueUnavailableError` when graphile-worker is not installed.
 */
export async function migrateJobQueue(
  database: DatabaseOption,
  options: { schema?: string; jobSchema?: string } = {},
): Promise<{ jobSchema: string }> {
  const { jobSchema } = schemasOf(options);
  const connection = connectionOf(database);
  const graphile = await loadGraphile();
  await graphile.runMigrations({
    ...('pool' in connection ? { pgPool: connection.pool } : { connectionString: connection.connectionString }),
    schema: jobSchema,
    logger: quietLogger(graphile, defaultLog),
  });
  return { jobSchema };
}
