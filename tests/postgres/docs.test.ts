import { expect, it } from 'vitest';
import pg from 'pg';
import { missing, runDocExamples } from '../support/doc-examples.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

it.skipIf(postgresUrl === undefined)('every example in docs/postgres.md runs and prints what its comments say', async () => {
  const name = freshSchema('docs');
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = postgresUrl!.replace(/\/postgres$/, `/${name}`);
  const { code, stderr, blocks } = await runDocExamples('docs/postgres.md', { env: { INDUSAGI_DATABASE_URL: url } });
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(blocks.length).toBeGreaterThanOrEqual(1);
  for (const block of blocks) expect(missing(block), `block ${block.index} printed:\n${block.printed.join('\n')}`).toEqual([]);
});
