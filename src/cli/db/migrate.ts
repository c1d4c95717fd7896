// `indusagi db migrate`: the one explicit step that creates or upgrades the PostgreSQL schema.
import { migratePostgres } from '../../postgres/index.js';
import type { Command } from '../args.js';
import { CliUsageError } from '../errors.js';

type DbCommand = Extract<Command, { name: 'db' }>;

export async function runDb(command: DbCommand, env: NodeJS.ProcessEnv, write: (text: string) => void): Promise<void> {
  const url = command.database ?? env.INDUSAGI_DATABASE_URL;
  if (url === undefined || url.trim() === '') throw new CliUsageError('db migrate needs --database postgres://… or INDUSAGI_DATABASE_URL');
  const result = await migratePostgres({ connectionString: url }, { schema: command.schema });
  if (result.applied.length === 0) {
    write(`schema ${result.schema} is at version ${result.from}; nothing to apply\n`);
  } else {
    write(`schema ${result.schema}: version ${result.from} -> ${result.to}\n`);
    for (const { version, name } of result.applied) write(`  applied ${version}: ${name}\n`);
  }
  // The agent server's job queue, when graphile-worker is there to set it up (only servers need it).
  const { migrateJobQueue, JobQueueUnavailableError } = await import('../../server/index.js');
  try {
    const { jobSchema } = await migrateJobQueue(url, { schema: command.schema });
    write(`job queue (graphile-worker) in schema ${jobSchema}: up to date\n`);
  } catch (error) {
    if (!JobQueueUnavailableError.isInstance(error)) throw error;
    write('job queue: skipped (graphile-worker is not installed; indusagi serve --database and indusagi worker need it)\n');
  }
}
