import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { PostgresSessionStore } from '../../src/postgres/index.js';
import { makeWorkspace, runCli } from './cli-process.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const SLOW = 300_000;

describe.skipIf(postgresUrl === undefined)('indusagi --store postgres://', () => {
  let url = '';
  let workspace: Awaited<ReturnType<typeof makeWorkspace>>;
  beforeAll(async () => {
    workspace = await makeWorkspace();
    // A database of its own: the CLI uses the default schema name, which other tests may use too.
    const name = freshSchema('clises');
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    url = postgresUrl!.replace(/\/postgres$/, `/${name}`);
  });
  afterAll(() => workspace.cleanup());

  it(
    'keeps -p sessions in the database: a second run continues the first, sessions ls and show read them, rm refuses',
    async () => {
      const unmigrated = await runCli(['-p', 'list files in src', '--store', url], workspace.dir);
      expect(unmigrated.code).toBe(1);
      expect(unmigrated.stderr).toMatch(/schema "indusagi" has no indusagi tables.*indusagi db migrate/);
      expect((await runCli(['db', 'migrate', '--database', url], workspace.dir)).code).toBe(0);

      const first = await runCli(['-p', 'list files in src', '--session', 'shared', '--store', url], workspace.dir);
      expect(first).toMatchObject({ code: 0, stderr: '', stdout: '(offline demo model) src holds:\ngreeting.txt\n' });
      const second = await runCli(['-p', 'read src/greeting.txt', '--session', 'shared', '--store', url], workspace.dir);
      expect(second).toMatchObject({ code: 0, stdout: '(offline demo model) src/greeting.txt reads:\nhello from the workspace\n' });

      const store = new PostgresSessionStore({ connectionString: url });
      try {
        const graph = await store.loadSession('shared');
        expect(graph.size).toBe(8);
        expect(graph.tips()).toHaveLength(1);
      } finally {
        await store.close();
      }
      const ls = await runCli(['sessions', 'ls', '--store', url], workspace.dir, [], { NO_COLOR: '1' });
      expect(ls.stdout).toMatch(/^shared .* 8 nodes .*list files in src\n$/);
      const show = await runCli(['sessions', 'show', 'shared', '--store', url], workspace.dir, [], { NO_COLOR: '1' });
      expect(show.stdout).toContain('hello from the workspace');
      const rm = await runCli(['sessions', 'rm', 'shared', '--store', url], workspace.dir);
      expect(rm.code).toBe(2);
      expect(rm.stderr).toMatch(/sessions rm deletes session files/);
      // Files stay the default: nothing was written under the workspace's session folder.
      const files = await runCli(['sessions', 'ls'], workspace.dir);
      expect(files.stdout).toMatch(/^no sessions in /);
    },
    SLOW,
  );
});
