// The statements of PostgresSessionStore. Every one names (tenant, session) in its WHERE clause, so no
// tenant reaches another's rows; every write is one statement (one implicit transaction, one round trip)
// that commits only while the writer's lease epoch is the session's.

import { createHash } from 'node:crypto';
import type { PreparedQuery } from './driver.js';

/** `s` is the quoted schema name. */
export type SessionSql = ReturnType<typeof sessionSql>;

// Statements are prepared once per connection: planning the persist statement costs several times
// what running it does. The name carries a hash of the text (which holds the schema), so two stores
// on one pool never give one name two texts.
function prepared(statements: Record<string, string>): Record<string, PreparedQuery> {
  return Object.fromEntries(
    Object.entries(statements).map(([key, text]) => [key, { name: `indusagi_${key}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text }]),
  );
}

const SESSION_COLUMNS = `leaf, nodes::float8 AS nodes, records::float8 AS records, bytes::float8 AS bytes,
  input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens, cache_write_tokens::float8 AS cache_write_tokens,
  cache_read_tokens::float8 AS cache_read_tokens, cache_write_1h_tokens::float8 AS cache_write_1h_tokens`;

export function sessionSql(s: string) {
  return prepared({
    /** $1 tenant, $2 session. */
    session: `SELECT ${SESSION_COLUMNS} FROM ${s}.sessions WHERE tenant = $1 AND id = $2`,

    /**
     * Takes the lease when it is free or expired (the database's clock decides, so machines' clocks
     * need not agree), raising the epoch; makes the session's row on first use. No row back: it is held.
     * $1 tenant, $2 session, $3 holder, $4 lease ms.
     */
    takeLease: `INSERT INTO ${s}.sessions AS t (tenant, id, lease_holder, lease_epoch, lease_expires)
      VALUES ($1, $2, $3, 1, now() + $4::float8 * interval '1 millisecond')
      ON CONFLICT (tenant, id) DO UPDATE
        SET lease_holder = excluded.lease_holder, lease_epoch = t.lease_epoch + 1, lease_expires = excluded.lease_expires
        WHERE t.lease_holder IS NULL OR t.lease_expires <= now()
      RETURNING t.lease_epoch::float8 AS epoch`,

    /** Who holds the lease now. $1 tenant, $2 session. */
    holder: `SELECT lease_holder AS holder, lease_epoch::float8 AS epoch, lease_expires AS expires FROM ${s}.sessions WHERE tenant = $1 AND id = $2`,

    /** Extends a lease still held under its epoch. $1 tenant, $2 session, $3 epoch, $4 lease ms. */
    renewLease: `UPDATE ${s}.sessions SET lease_expires = now() + $4::float8 * interval '1 millisecond'
      WHERE tenant = $1 AND id = $2 AND lease_epoch = $3 RETURNING 1`,

    /** Lets the lease go (the epoch stays, so the next writer's is higher). $1 tenant, $2 session, $3 epoch. */
    releaseLease: `UPDATE ${s}.sessions SET lease_holder = NULL, lease_expires = NULL
      WHERE tenant = $1 AND id = $2 AND lease_epoch = $3`,

    /**
     * One persist: new nodes (a node already stored is skipped: ids are content hashes, so a retried
     * write adds nothing), start counts, leaf, totals and a renewed lease, all or nothing, and only
     * under the writer's epoch. The `lease` row lock orders this write against a takeover: whichever
     * commits first, the other sees it. No row back: the writer was fenced.
     *
     * $1 tenant, $2 session, $3 epoch, $4 lease ms; the nodes as parallel arrays $5 id, $6 parent,
     * $7 condenses, $8 first_kept, $9 node JSON, $10 bytes, $11-$15 usage; $16 started call ids;
     * $17 whether the leaf moves, $18 the leaf; $19 records and $20 bytes besides the nodes.
     */
    persist: `WITH lease AS (
        SELECT 1 FROM ${s}.sessions WHERE tenant = $1 AND id = $2 AND lease_epoch = $3 FOR UPDATE
      ), input AS (
        SELECT * FROM unnest($5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::int[],
          $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[], $15::bigint[])
          WITH ORDINALITY AS i(id, parent, condenses, first_kept, node, bytes, u_in, u_out, u_cw, u_cr, u_cw1h, ord)
      ), added AS (
        INSERT INTO ${s}.session_nodes (tenant, session, id, parent, condenses, first_kept, node, bytes)
        SELECT $1, $2, id, parent, condenses, first_kept, node, bytes FROM input WHERE EXISTS (SELECT 1 FROM lease) ORDER BY ord
        ON CONFLICT (tenant, session, id) DO NOTHING
        RETURNING id
      ), started AS (
        INSERT INTO ${s}.session_starts AS st (tenant, session, call_id, count)
        SELECT $1, $2, call_id, count(*) FROM unnest($16::text[]) AS call_id WHERE EXISTS (SELECT 1 FROM lease) GROUP BY call_id
        ON CONFLICT (tenant, session, call_id) DO UPDATE SET count = st.count + excluded.count
      ), totals AS (
        SELECT count(*) AS n, coalesce(sum(i.bytes), 0) AS bytes, coalesce(sum(i.u_in), 0) AS u_in, coalesce(sum(i.u_out), 0) AS u_out,
          coalesce(sum(i.u_cw), 0) AS u_cw, coalesce(sum(i.u_cr), 0) AS u_cr, coalesce(sum(i.u_cw1h), 0) AS u_cw1h
        FROM added a JOIN input i USING (id)
      )
      UPDATE ${s}.sessions AS t SET
        leaf = CASE WHEN $17::boolean THEN $18::text ELSE t.leaf END,
        nodes = t.nodes + totals.n,
        records = t.records + totals.n + $19,
        bytes = t.bytes + totals.bytes + $20,
        input_tokens = t.input_tokens + totals.u_in,
        output_tokens = t.output_tokens + totals.u_out,
        cache_write_tokens = t.cache_write_tokens + totals.u_cw,
        cache_read_tokens = t.cache_read_tokens + totals.u_cr,
        cache_write_1h_tokens = t.cache_write_1h_tokens + totals.u_cw1h,
        lease_expires = now() + $4::float8 * interval '1 millisecond',
        updated_at = now()
      FROM totals
      WHERE t.tenant = $1 AND t.id = $2 AND t.lease_epoch = $3 AND EXISTS (SELECT 1 FROM lease)
      RETURNING totals.n::int AS added, totals.bytes::float8 AS bytes`,

    /** Every session of the tenant holding a node, most recently written first, with its first node. $1 tenant. */
    list: `SELECT s.id, s.bytes::float8 AS bytes, s.updated_at, s.leaf, s.nodes::float8 AS nodes,
        (SELECT n.node FROM ${s}.session_nodes n WHERE n.tenant = s.tenant AND n.session = s.id ORDER BY n.seq LIMIT 1) AS first
      FROM ${s}.sessions s WHERE s.tenant = $1 AND s.nodes > 0 ORDER BY s.updated_at DESC, s.id`,

    /** Every node, in the order written. $1 tenant, $2 session. */
    allNodes: `SELECT node FROM ${s}.session_nodes WHERE tenant = $1 AND session = $2 ORDER BY seq`,

    /** Every start count. $1 tenant, $2 session. */
    allStarts: `SELECT call_id, count::float8 AS count FROM ${s}.session_starts WHERE tenant = $1 AND session = $2`,

    /** The start counts of some calls. $1 tenant, $2 session, $3 call ids. */
    startsOf: `SELECT call_id, count::float8 AS count FROM ${s}.session_starts WHERE tenant = $1 AND session = $2 AND call_id = ANY($3::text[])`,

    /**
     * The model context at the leaf, one primary-key lookup per node: up from the leaf to the latest
     * condensation summary, then (`target`) through its kept tail up to `firstKept`; older summaries
     * inside the tail are walked through. Without a summary the walk reaches the root. The same nodes
     * `SessionGraph.contextNodes(leaf)` names. $1 tenant, $2 session, $3 leaf.
     */
    livePath: `WITH RECURSIVE walk(id, parent, condenses, first_kept, node, target) AS (
        SELECT id, parent, condenses, first_kept, node, NULL::text FROM ${s}.session_nodes
        WHERE tenant = $1 AND session = $2 AND id = $3
        UNION ALL
        SELECT n.id, n.parent, n.condenses, n.first_kept, n.node, coalesce(w.target, CASE WHEN w.condenses THEN w.first_kept END)
        FROM walk w JOIN ${s}.session_nodes n ON n.tenant = $1 AND n.session = $2 AND n.id = w.parent
        WHERE (w.target IS NULL AND NOT w.condenses) OR (coalesce(w.target, CASE WHEN w.condenses THEN w.first_kept END) IS NOT NULL AND w.id <> coalesce(w.target, w.first_kept))
      )
      SELECT node FROM walk`,
  }) as Record<'session' | 'takeLease' | 'holder' | 'renewLease' | 'releaseLease' | 'persist' | 'list' | 'allNodes' | 'allStarts' | 'startsOf' | 'livePath', PreparedQuery>;
}
