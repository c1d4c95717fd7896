import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { openMemoryFile } from '../../src/cli/memory-file.js';
import { PostgresMemoryStore } from '../../src/postgres/index.js';
import type { GovernedMemoryStore } from '../../src/memory/index.js';
import { makeWorkspace, runCli } from './cli-process.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

// Each test runs the real command several times, a Node process and tsx each: slow on a busy 2-core machine.
const SLOW = 300_000;

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeWorkspace());
});
afterEach(() => cleanup());

/** ls, rm and edit against whichever store `--memory` names, filled through `seed`. */
function memoryCommands(
  label: string,
  location: () => string,
  seed: () => Promise<{ store: GovernedMemoryStore; close(): Promise<void> }>,
) {
  describe(`indusagi memory, ${label}`, () => {
    it(
      'lists current memories, --all shows the superseded ones, rm and edit take an id prefix',
      async () => {
        const { store, close } = await seed();
        const old = await store.save('The build runs on Fridays', { key: 'build-day' });
        const current = await store.save('The build runs on Thursdays', { key: 'build-day' });
        const pet = await store.save('Has a dog named Rex', { kind: 'fact', scope: { resource: 'ana' } });
        await close();
        const short = (id: string) => id.slice(0, 8);

        const ls = await runCli(['memory', 'ls', '--memory', location()], dir);
        expect(ls.stderr).toBe('');
        expect(ls.code).toBe(0);
        const lines = ls.stdout.trim().split('\n');
        expect(lines).toHaveLength(2);
        expect(lines[0]).toMatch(new RegExp(`^${short(current.id)}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  The build runs on Thursdays$`));
        expect(lines[1]).toMatch(new RegExp(`^${short(pet.id)}  .*\\[fact\\] Has a dog named Rex  @ana$`));

        const all = await runCli(['memory', 'ls', '--all', '--memory', location()], dir);
        expect(all.stdout).toContain(`${short(old.id)}  `);
        expect(all.stdout).toContain(`The build runs on Fridays  (superseded by ${short(current.id)})`);
        const mine = await runCli(['memory', 'ls', '--resource', 'ana', '--memory', location()], dir);
        expect(mine.stdout.trim().split('\n')).toHaveLength(1);

        const edit = await runCli(['memory', 'edit', pet.id.slice(0, 6), 'Has a dog named Max', '--memory', location()], dir);
        expect(edit).toMatchObject({ code: 0, stderr: '', stdout: `edited ${short(pet.id)}: Has a dog named Max\n` });
        const rm = await runCli(['memory', 'rm', old.id, '--memory', location()], dir);
        expect(rm).toMatchObject({ code: 0, stdout: `forgot ${short(old.id)}: The build runs on Fridays\n` });

        const after = await seed();
        expect((await after.store.all()).map((r) => [r.id, r.text])).toEqual([
          [current.id, 'The build runs on Thursdays'],
          [pet.id, 'Has a dog named Max'],
        ]);
        expect((await after.store.search('dog max', { scope: { resource: 'ana' } })).map((r) => r.id)).toEqual([pet.id]);
        await after.close();
      },
      SLOW,
    );

    it(
      "refuses an unknown or ambiguous id, an empty edit, and another owner's record, with exit 2 and nothing changed",
      async () => {
        const { store, close } = await seed();
        const a = await store.save('alpha fact', { scope: { resource: 'ana' } });
        await close();
        const cases: Array<[string[], RegExp]> = [
          [['memory', 'rm', 'zzzz'], /no memory "zzzz"/],
          [['memory', 'rm', ''], /memory rm: a memory id must not be empty/],
          [['memory', 'edit', a.id], /memory edit needs a memory id and the new text/],
          [['memory', 'edit', a.id, '   '], /Memory text is empty/],
          [['memory', 'rm', a.id, '--resource', 'bob'], /no memory/],
          [['memory', 'frob'], /unknown memory action "frob"/],
        ];
        for (const [args, message] of cases) {
          const result = await runCli([...args, '--memory', location()], dir);
          expect(result.code, args.join(' ')).toBe(2);
          expect(result.stderr).toMatch(message);
        }
        const after = await seed();
        expect((await after.store.all()).map((r) => r.text)).toEqual(['alpha fact']);
        await after.close();
      },
      SLOW,
    );
  });
}

memoryCommands(
  'in the memory file',
  () => join(dir, 'memory.jsonl'),
  async () => ({ store: await openMemoryFile(join(dir, 'memory.jsonl')), close: async () => {} }),
);

describe('the memory file', () => {
  it('logs a supersede as the new record and the retired one in one append, and replays both', async () => {
    const path = join(dir, 'memory.jsonl');
    const store = await openMemoryFile(path);
    const old = await store.save('Lives in Lisbon', { key: 'home' });
    const fresh = await store.save('Lives in Porto', { key: 'home' });
    const lines = (await readFile(path, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.op, l.record.id, l.record.supersededBy])).toEqual([
      ['save', old.id, undefined],
      ['save', fresh.id, undefined],
      ['save', old.id, fresh.id],
    ]);
    const again = await openMemoryFile(path);
    expect((await again.search('lives')).map((r) => r.id)).toEqual([fresh.id]);
    expect((await again.get(old.id))!.supersededBy).toBe(fresh.id);
  });
});

describe.skipIf(postgresUrl === undefined)('indusagi db migrate and --memory postgres://', () => {
  let url = '';
  beforeEach(async () => {
    // A database of its own: the CLI uses the default schema name, which other tests may use too.
    const name = freshSchema('cli');
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    url = postgresUrl!.replace(/\/postgres$/, `/${name}`);
  });

  it(
    'migrates once from INDUSAGI_DATABASE_URL, then says there is nothing to apply; before that the store names the command',
    async () => {
      const before = await runCli(['memory', 'ls', '--memory', url], dir);
      expect(before.code).toBe(1);
      expect(before.stderr).toMatch(/schema "indusagi" has no indusagi tables.*indusagi db migrate/);
      const first = await runCli(['db', 'migrate'], dir, [], { INDUSAGI_DATABASE_URL: url });
      expect(first).toMatchObject({ code: 0, stderr: '' });
      expect(first.stdout).toBe(
        'schema indusagi: version 0 -> 10\n  applied 1: memory records, term statistics\n  applied 2: sessions: content-addressed nodes, started calls, leaf and writer lease\n' +
          '  applied 3: sessions: when each was last written, for listing\n  applied 4: sessions: steps that only add nodes leave the session row alone\n' +
          '  applied 5: memory: a per-tenant version and change log, for replicas of the search index\n' +
          '  applied 6: sessions: the guardrail trip standing at the leaf\n' +
          '  applied 7: agent server: threads, runs, run events, workers\n' +
          '  applied 8: agent server: answers to the questions of running runs\n' +
          '  applied 9: memory: the embedder whose vectors the schema keeps\n' +
          '  applied 10: memory: working memory, one block per scope\n' +
          'job queue (graphile-worker) in schema indusagi_jobs: up to date\n',
      );
      const second = await runCli(['db', 'migrate', '--database', url], dir);
      expect(second.stdout).toBe(
        'schema indusagi is at version 10; nothing to apply\njob queue (graphile-worker) in schema indusagi_jobs: up to date\n',
      );
      const none = await runCli(['db', 'migrate'], dir, [], { INDUSAGI_DATABASE_URL: '' });
      expect(none.code).toBe(2);
      expect(none.stderr).toMatch(/needs --database/);
    },
    SLOW,
  );

  memoryCommands(
    'in PostgreSQL',
    () => url,
    async () => {
      const store = new PostgresMemoryStore({ connectionString: url });
      await store.migrate();
      return { store, close: () => store.close() };
    },
  );
});
