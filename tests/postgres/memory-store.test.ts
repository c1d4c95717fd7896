import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  migratePostgres,
  PostgresMemoryStore,
  PostgresOptionsError,
  PostgresSchemaBehindError,
  PostgresStoreError,
} from '../../src/postgres/index.js';
import { MemoryStoreClosedError } from '../../src/memory/index.js';
import { LATEST_VERSION, MIGRATIONS } from '../../src/postgres/migrations.js';
import type { PostgresStoreOptions } from '../../src/postgres/index.js';
import { memoryStoreContract } from '../memory/store-contract.js';
import { workingMemoryContract } from '../memory/working-contract.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const repo = resolve(import.meta.dirname, '../..');

describe.skipIf(postgresUrl === undefined)('PostgresMemoryStore', () => {
  const pool = testPool({ max: 8 });
  const stores: PostgresMemoryStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const make = (options: PostgresStoreOptions = {}, connection: ConstructorParameters<typeof PostgresMemoryStore>[0] = { pool }) => {
    const store = new PostgresMemoryStore(connection, options);
    stores.push(store);
    return store;
  };
  const open = async () => {
    const store = make({ schema: freshSchema('mem') });
    await store.migrate();
    return store;
  };

  memoryStoreContract('PostgresMemoryStore', open);
  memoryStoreContract('PostgresMemoryStore with a replica of its search index', async () => {
    const store = make({ schema: freshSchema('rep'), replica: true });
    await store.migrate();
    return store;
  });

  // The peer has its own pool: two writers racing are two connections, as two machines would be.
  workingMemoryContract(
    'PostgresMemoryStore',
    async () => {
      const schema = freshSchema('work');
      const store = make({ schema });
      await store.migrate();
      return { store, peer: make({ schema }, { connectionString: postgresUrl! }) };
    },
    {
      tenants: async () => {
        const schema = freshSchema('worktenant');
        const a = make({ schema, tenant: 'acme' });
        await a.migrate();
        return [a, make({ schema, tenant: 'globex' })];
      },
    },
  );

  it('refuses working memory on a schema before version 10 with PostgresSchemaBehindError, while records keep working', async () => {
    const schema = freshSchema('work9');
    const store = make({ schema });
    await store.migrate();
    // A schema migrated by the release before working memory: everything but migration 10.
    await pool.query(`DROP TABLE "${schema}".working_memory; DELETE FROM "${schema}".schema_migrations WHERE version >= 10`);
    const older = make({ schema });
    const saved = await older.save('The user prefers metric units');
    expect((await older.search('units')).map((r) => r.id)).toEqual([saved.id]);
    for (const call of [
      () => older.getWorking({}),
      () => older.setWorking({}, 'x', { expectedVersion: 0 }),
      () => older.forgetWorking({}),
    ]) {
      const error = await call().catch((e: unknown) => e);
      expect(PostgresSchemaBehindError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'postgres_schema_behind', needed: 10 });
    }
    expect((await older.migrate()).applied.map((a) => a.version)).toEqual([10]);
    expect(await older.setWorking({}, 'now it works', { expectedVersion: 0 })).toEqual({ content: 'now it works', version: 1 });
  });

  describe('a replica of the search index', () => {
    it("follows every process's saves, edits, superseding and forgetting, and ranks exactly as the database does", async () => {
      const schema = freshSchema('follow');
      const replicated = make({ schema, replica: true });
      await replicated.migrate();
      const direct = make({ schema });
      // Another machine writes; this one searches.
      const writer = make({ schema });
      const same = async (query: string, opts?: Parameters<PostgresMemoryStore['search']>[1]) => {
        const [a, b] = await Promise.all([replicated.search(query, opts), direct.search(query, opts)]);
        expect(a).toEqual(b);
        return a;
      };
      const texts = [
        'Invoices go out on the first',
        'The user prefers metric units',
        'Deploys happen on Tuesdays',
        'Invoices are in euros',
      ];
      for (const text of texts) await writer.save(text, { scope: { resource: 'ana' } });
      expect((await same('invoices', { scope: { resource: 'ana' } })).map((h) => h.text)).toEqual([
        'Invoices are in euros',
        'Invoices go out on the first',
      ]);

      const first = (await writer.list({ scope: { resource: 'ana' } }))[0];
      await writer.update(first.id, { text: 'Invoices go out on the fifth' }, { scope: { resource: 'ana' } });
      await writer.save('The user prefers imperial units', { key: 'units', scope: { resource: 'ana' } });
      await writer.save('The user prefers metric units, always', { key: 'units', scope: { resource: 'ana' } });
      const deploys = (await writer.search('deploys', { scope: { resource: 'ana' } }))[0];
      await writer.forget(deploys.id, { scope: { resource: 'ana' } });

      expect((await same('invoices fifth', { scope: { resource: 'ana' } }))[0].text).toBe('Invoices go out on the fifth');
      expect((await same('user prefers units', { scope: { resource: 'ana' } })).map((h) => h.text)).toContain(
        'The user prefers metric units, always',
      );
      expect((await same('user prefers units', { scope: { resource: 'ana' } })).map((h) => h.text)).not.toContain(
        'The user prefers imperial units',
      );
      expect((await same('user prefers units', { scope: { resource: 'ana' }, includeSuperseded: true })).map((h) => h.text)).toContain(
        'The user prefers imperial units',
      );
      expect(await same('deploys tuesdays', { scope: { resource: 'ana' } })).toEqual([]);
      expect(await same('invoices', { scope: { resource: 'bob' } })).toEqual([]);
    });

    it('a store that was never searched and one that was see the same after many writes from elsewhere', async () => {
      const schema = freshSchema('late');
      const early = make({ schema, replica: true });
      await early.migrate();
      const writer = make({ schema });
      await writer.save('alpha beta gamma');
      expect(await early.search('alpha')).toHaveLength(1);
      await Promise.all(Array.from({ length: 40 }, (_, i) => writer.save(`alpha note ${i} beta`)));
      const late = make({ schema, replica: true });
      const [a, b] = await Promise.all([early.search('alpha beta', { k: 50 }), late.search('alpha beta', { k: 50 })]);
      expect(a).toHaveLength(41);
      expect(a).toEqual(b);
    });
  });

  describe('tenancy', () => {
    it("one tenant never reads or writes another tenant's memories, whatever the id or query", async () => {
      const schema = freshSchema('ten');
      const a = make({ schema, tenant: 'acme' });
      const b = make({ schema, tenant: 'globex' });
      const none = make({ schema });
      // A replica holds only its own tenant's records.
      const bReplica = make({ schema, tenant: 'globex', replica: true });
      await a.migrate();
      const secret = await a.save('The acme launch code is 0000', { key: 'launch' });
      const theirs = await b.save('The globex launch code is 1234', { key: 'launch' });
      expect(theirs.supersedes).toBeUndefined(); // the same key in another tenant is another slot
      for (const other of [b, none, bReplica]) {
        expect((await other.search('acme launch code 0000', { k: 10 })).map((r) => r.id)).not.toContain(secret.id);
        expect(await other.get(secret.id)).toBeUndefined();
        expect(await other.update(secret.id, { text: 'overwritten' })).toBeUndefined();
        expect(await other.forget(secret.id)).toBe(false);
        expect((await other.all()).map((r) => r.id)).not.toContain(secret.id);
        expect((await other.list({ includeSuperseded: true })).map((r) => r.id)).not.toContain(secret.id);
        const error = await other.save('x', { supersedes: secret.id }).catch((e: unknown) => e);
        expect((error as { kind?: string }).kind).toBe('memory_conflict');
      }
      expect(await a.get(secret.id)).toEqual(secret);
      expect(await none.all()).toEqual([]);
      // Ranking statistics are per tenant too: globex's documents do not change acme's scores.
      const alone = make({ schema, tenant: 'solo' });
      await alone.save('The acme launch code is 0000', { key: 'launch' });
      expect((await alone.search('launch code'))[0].score).toBeCloseTo((await a.search('launch code'))[0].score!, 12);
    });

    it('refuses options it cannot use, before connecting', () => {
      const bad: Array<() => unknown> = [
        () => new PostgresMemoryStore({ pool }, { tenant: '' }),
        () => new PostgresMemoryStore({ pool }, { tenant: 'a\0b' }),
        () => new PostgresMemoryStore({ pool }, { schema: 'x"; DROP SCHEMA public; --' }),
        () => new PostgresMemoryStore({ pool }, { schema: '' }),
        () => new PostgresMemoryStore({ pool }, { replica: 'yes' } as never),
        () => new PostgresMemoryStore({} as never),
        () => new PostgresMemoryStore({ connectionString: postgresUrl!, pool } as never),
      ];
      for (const make of bad) {
        let error: unknown;
        try {
          make();
        } catch (e) {
          error = e;
        }
        expect(PostgresOptionsError.isInstance(error), String(error)).toBe(true);
      }
    });
  });

  describe('migrations', () => {
    it('never creates tables on first use: an unmigrated schema fails every call with PostgresSchemaBehindError until migrate()', async () => {
      const schema = freshSchema('mig');
      const store = make({ schema });
      for (const call of [() => store.save('x'), () => store.search('x'), () => store.all(), () => store.forget('x')]) {
        const error = await call().catch((e: unknown) => e);
        expect(PostgresSchemaBehindError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ kind: 'postgres_schema_behind', found: 0, needed: 5 });
        expect((error as Error).message).toContain('indusagi db migrate');
      }
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = $1', [schema]);
      expect(rows[0].n).toBe(0);
      const result = await store.migrate();
      expect(result).toMatchObject({ schema, from: 0, to: LATEST_VERSION, applied: MIGRATIONS.map(({ version }) => ({ version })) });
      expect((await store.save('now it works')).text).toBe('now it works');
      expect((await store.migrate()).applied).toEqual([]);
    });

    it('several processes migrating at once apply each migration exactly once', async () => {
      const schema = freshSchema('race');
      const results = await Promise.all(Array.from({ length: 4 }, () => migratePostgres({ connectionString: postgresUrl! }, { schema })));
      expect(results.flatMap((r) => r.applied.map((a) => a.version))).toEqual(MIGRATIONS.map(({ version }) => version));
      const { rows } = await pool.query(`SELECT version FROM "${schema}".schema_migrations`);
      expect(rows).toEqual(MIGRATIONS.map(({ version }) => ({ version })));
    });
  });

  describe('concurrency', () => {
    it('writers racing on one key leave exactly one current record, each superseding the one before', async () => {
      const schema = freshSchema('key');
      const first = make({ schema });
      await first.migrate();
      const writers = [first, make({ schema }, { connectionString: postgresUrl! }), make({ schema }, { connectionString: postgresUrl! })];
      const saved = await Promise.all(
        Array.from({ length: 24 }, (_, i) => writers[i % 3].save(`The office closes at ${i} pm`, { key: 'closing-time' })),
      );
      const all = await first.all();
      expect(all).toHaveLength(24);
      const current = all.filter((r) => r.supersededBy === undefined);
      expect(current).toHaveLength(1);
      // Following supersededBy from any record reaches the one current record: a chain, no forks.
      const byId = new Map(all.map((r) => [r.id, r]));
      const superseded = all.filter((r) => r.supersededBy !== undefined);
      expect(new Set(superseded.map((r) => r.supersededBy)).size).toBe(23);
      for (const record of saved) {
        let at = byId.get(record.id)!;
        for (let hops = 0; at.supersededBy !== undefined && hops < 30; hops++) at = byId.get(at.supersededBy)!;
        expect(at.id).toBe(current[0].id);
      }
    });

    it('concurrent saves, edits and forgets keep the ranking statistics equal to the rows', async () => {
      const schema = freshSchema('stats');
      const store = make({ schema, tenant: 't1' });
      await store.migrate();
      const other = make({ schema, tenant: 't1' }, { connectionString: postgresUrl! });
      // A replica that has searched before the race follows it through the change log alone.
      const replicated = make({ schema, tenant: 't1', replica: true });
      await replicated.search('alpha');
      const saved = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? store : other).save(`shared words alpha beta ${i % 5} gamma${i}`)),
      );
      await Promise.all([
        ...saved.slice(0, 10).map((r, i) => (i % 2 ? store : other).forget(r.id)),
        ...saved.slice(10, 20).map((r, i) => (i % 2 ? store : other).update(r.id, { text: `rewritten delta ${i}` })),
      ]);
      const s = `"${schema}"`;
      const { rows: stats } = await pool.query(`SELECT docs::int, total_length::int FROM ${s}.memory_stats WHERE tenant = 't1'`);
      const { rows: actual } = await pool.query(
        `SELECT count(*)::int AS docs, coalesce(sum(array_length(string_to_array(nullif(terms, ''), ' '), 1)), 0)::int AS total_length FROM ${s}.memory_records WHERE tenant = 't1'`,
      );
      expect(stats).toEqual(actual);
      const { rows: drift } = await pool.query(
        `SELECT t.term, t.df, count(r.seq)::int AS real FROM ${s}.memory_terms t
         LEFT JOIN ${s}.memory_records r ON r.tenant = t.tenant AND r.lexemes @@ to_tsquery('simple', quote_literal(t.term))
         WHERE t.tenant = 't1' GROUP BY t.term, t.df HAVING t.df <> count(r.seq)`,
      );
      expect(drift).toEqual([]);
      for (const query of ['shared alpha', 'rewritten delta', 'gamma7 beta', 'words 3']) {
        expect(await replicated.search(query, { k: 40 })).toEqual(await store.search(query, { k: 40 }));
      }
    });
  });

  describe('connections', () => {
    it('close() ends the pool it made, leaves a borrowed pool open, and later calls fail with MemoryStoreClosedError', async () => {
      const schema = freshSchema('close');
      const owned = make({ schema }, { connectionString: postgresUrl! });
      await owned.migrate();
      await owned.save('written through its own pool');
      await owned.close();
      await owned.close();
      for (const call of [() => owned.save('late'), () => owned.search('late'), () => owned.get('x'), () => owned.migrate()]) {
        expect(MemoryStoreClosedError.isInstance(await call().catch((e: unknown) => e))).toBe(true);
      }
      const borrowed = make({ schema });
      await borrowed.close();
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });

    it("a server that cannot be reached is a PostgresStoreError with the socket's code", async () => {
      const store = make({}, { connectionString: 'postgresql://postgres@127.0.0.1:1/postgres' });
      const error = await store.search('anything').catch((e: unknown) => e);
      expect(PostgresStoreError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ kind: 'postgres_store', code: 'ECONNREFUSED' });
    });

    it('without pg installed: the other entries load, a URL store rejects with PostgresUnavailableError naming pg', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'indusagi-no-pg-'));
      try {
        const hook = join(dir, 'no-pg.mjs');
        writeFileSync(
          hook,
          `import { register } from 'node:module';
           register('data:text/javascript,' + encodeURIComponent(\`
             export async function resolve(specifier, context, next) {
               if (specifier === 'pg') { const e = new Error("Cannot find package 'pg'"); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; }
               return next(specifier, context);
             }\`));`,
        );
        const script = join(dir, 'child.mts');
        writeFileSync(
          script,
          `import { createMemoryStore } from ${JSON.stringify(join(repo, 'src/memory/index.ts'))};
           import { PostgresMemoryStore, PostgresUnavailableError } from ${JSON.stringify(join(repo, 'src/postgres/index.ts'))};
           await createMemoryStore().save('works without pg');
           const store = new PostgresMemoryStore({ connectionString: 'postgresql://nobody@127.0.0.1:1/x' });
           const error = await store.search('x').catch((e) => e);
           console.log(JSON.stringify({ unavailable: PostgresUnavailableError.isInstance(error), kind: error.kind, message: error.message }));`,
        );
        const out = await new Promise<{ stdout: string; stderr: string }>((done, fail) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--import', hook, script], { cwd: repo });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (c: Buffer) => (stdout += c));
          child.stderr.on('data', (c: Buffer) => (stderr += c));
          child.on('error', fail);
          child.on('close', () => done({ stdout, stderr }));
        });
        expect(out.stderr).toBe('');
        const outcome = JSON.parse(out.stdout);
        expect(outcome).toMatchObject({ unavailable: true, kind: 'postgres_unavailable' });
        expect(outcome.message).toContain('npm install pg');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
