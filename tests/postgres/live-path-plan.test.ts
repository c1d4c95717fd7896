// The live-path queries against a table PostgreSQL has no statistics for: a new deployment's first big
// session must not wait for autovacuum. The recursive walk and the windows of the write order
// (`liveStart`, `nodesBefore`) read one seeded session. Asserted on the plan (what the server will do),
// never on time: the plan hazard took minutes, and a loaded CI machine must not decide a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/postgres/index.js';
import { sessionSql } from '../../src/postgres/session-sql.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

type PlanNode = { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] };

const flatten = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(flatten)];
/** Node ids as long as the store's (64 hex digits, a SHA-256), which decides how big each index is. */
const ID = (n: string) => `md5((${n})::text) || md5((${n})::text || 'x')`;

describe.skipIf(postgresUrl === undefined)('the live-path queries on a table never analyzed', () => {
  const pool = testPool();
  const schema = freshSchema('plan');
  const NODES = 40_000;
  const LEAF = ID(String(NODES));

  beforeAll(async () => {
    await migratePostgres({ pool }, { schema });
    // As on a new deployment before autovacuum's first pass: 40,000 nodes and no statistics at all.
    await pool.query(`ALTER TABLE "${schema}".session_nodes SET (autovacuum_enabled = false)`);
    await pool.query(
      `INSERT INTO "${schema}".session_nodes (tenant, session, id, parent, condenses, first_kept, node, bytes)
       SELECT '', 'big', ${ID('i')}, CASE WHEN i > 1 THEN ${ID('i - 1')} END, false, NULL,
         '{"id":"' || ${ID('i')} || '","padding":"' || repeat('x', 200) || '"}', 220
       FROM generate_series(1, $1::int) AS i`,
      [NODES],
    );
    // Its row, as a writer leaves it: every node taken in, the last one the leaf.
    await pool.query(
      `INSERT INTO "${schema}".sessions (tenant, id, leaf, nodes, records, folded_seq)
       SELECT '', 'big', ${LEAF}, $1, $1, max(seq) FROM "${schema}".session_nodes`,
      [NODES],
    );
    const [{ analyzed }] = (
      await pool.query(
        `SELECT coalesce(last_analyze, last_autoanalyze) IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'session_nodes'`,
        [schema],
      )
    ).rows;
    expect(analyzed).toBe(false);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  });

  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const) {
    it(`walks up by one primary-key lookup per node, never a scan or hash of the session (${mode})`, async () => {
      const client = await pool.connect();
      try {
        await client.query(`SET plan_cache_mode = ${mode}`);
        await client.query(`PREPARE live_path AS ${sessionSql(`"${schema}"`).livePath.text}`);
        const { rows } = await client.query(`EXPLAIN (FORMAT JSON) EXECUTE live_path('', 'big', ${LEAF})`);
        const plan = flatten(rows[0]['QUERY PLAN'][0].Plan);
        const onNodes = plan.filter((node) => node['Relation Name'] === 'session_nodes');
        expect(onNodes.length).toBeGreaterThan(0);
        for (const node of onNodes) expect(node).toMatchObject({ 'Node Type': 'Index Scan', 'Index Name': 'session_nodes_pkey' });
        expect(plan.map((node) => node['Node Type'])).not.toContain('Hash Join');
        expect(plan.map((node) => node['Node Type'])).not.toContain('Merge Join');
      } finally {
        await client.query('DEALLOCATE ALL');
        await client.query('RESET plan_cache_mode');
        client.release();
      }
    });
  }

  it('reads the 40,000-node path touching each node once (buffers, not time)', async () => {
    const client = await pool.connect();
    try {
      // Where the plan is wrong this would run for minutes: the server stops it instead of CI.
      await client.query(`SET statement_timeout = '60s'`);
      await client.query(`PREPARE live_path_run AS ${sessionSql(`"${schema}"`).livePath.text}`);
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) EXECUTE live_path_run('', 'big', ${LEAF})`);
      const plan = rows[0]['QUERY PLAN'][0].Plan as PlanNode & {
        'Actual Rows': number;
        'Shared Hit Blocks': number;
        'Shared Read Blocks': number;
      };
      expect(plan['Actual Rows']).toBe(NODES);
      // An index lookup touches a handful of blocks; a rescan of the session per step would touch millions.
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(NODES * 10);
    } finally {
      await client.query('DEALLOCATE ALL');
      await client.query('RESET statement_timeout');
      client.release();
    }
  });

  const statements = {
    nodesBefore: `'', 'big', ${LEAF}, 1024`,
    // The session's row names the leaf: the last node written.
    liveStart: `'', 'big', 100, 1024`,
  };
  for (const mode of ['force_custom_plan', 'force_generic_plan'] as const)
    for (const [key, args] of Object.entries(statements) as Array<[keyof typeof statements, string]>) {
      it(`${key} finds its start by primary key and reads a range of the write-order index, never the session (${mode})`, async () => {
        const client = await pool.connect();
        try {
          await client.query(`SET plan_cache_mode = ${mode}`);
          await client.query(`PREPARE window_of AS ${sessionSql(`"${schema}"`)[key].text}`);
          const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, TIMING OFF, FORMAT JSON) EXECUTE window_of(${args})`);
          const top = rows[0]['QUERY PLAN'][0].Plan as PlanNode & {
            'Actual Rows': number;
            'Shared Hit Blocks': number;
            'Shared Read Blocks': number;
          };
          const plan = flatten(top);
          expect(top['Actual Rows']).toBe(1024);
          const kinds = plan.map((node) => node['Node Type']);
          expect(kinds).not.toContain('Seq Scan');
          expect(kinds).not.toContain('Sort');
          expect(kinds).not.toContain('Hash Join');
          const indexes = plan.flatMap((node) => (node['Index Name'] === undefined ? [] : [node['Index Name']]));
          expect(indexes).toContain('session_nodes_pkey');
          expect(indexes).toContain('session_nodes_order');
          // A window of 1,024 rows of ~300 bytes touches a few hundred blocks; a scan of the session, thousands.
          expect(top['Shared Hit Blocks'] + top['Shared Read Blocks']).toBeLessThan(600);
        } finally {
          await client.query('DEALLOCATE ALL');
          await client.query('RESET plan_cache_mode');
          client.release();
        }
      });
    }
});
