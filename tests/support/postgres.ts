// What a test file needs to reach the run's PostgreSQL server (started by postgres-setup.ts): its URL,
// a fresh schema name per store, and a pool that is closed after the file.
import { randomBytes } from 'node:crypto';
import { afterAll, inject } from 'vitest';
import pg from 'pg';

const target = inject('postgres');

/** The server's URL, or undefined when there is none (only outside CI: under CI the run fails first). */
export const postgresUrl: string | undefined = 'url' in target ? target.url : undefined;

if (postgresUrl === undefined) console.warn(`[indusagi] skipping the PostgreSQL tests: ${'missing' in target ? target.missing : ''}.`);

/** A schema name no other test uses, so each store starts empty without a database per test. */
export function freshSchema(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A pool on the test server, ended after the file's tests. */
export function testPool(options: pg.PoolConfig = {}): pg.Pool {
  if (postgresUrl === undefined) throw new Error('no PostgreSQL server for this run');
  const pool = new pg.Pool({ connectionString: postgresUrl, max: 4, ...options });
  afterAll(() => pool.end());
  return pool;
}
