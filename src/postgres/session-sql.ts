// The statements of PostgresSessionStore. Every one is confined to one tenant ($1), so no tenant reaches
// another's rows; every write is one statement (one implicit transaction, one round trip) whose rows
// for a session commit only while the writer's lease epoch is the session's.

import { createHash } from 'node:crypto';
import type { PreparedQuery } from './driver.js';

/** `s` is the quoted schema name. */
export type SessionSql = ReturnType<typeof sessionSql>;

// Statements are prepared once per connection: planning the persist statement costs several times
// what running it does. The name carries a hash of the text (which holds the schema), so two stores
// on one pool never give one name two texts.
function prepared(statements: Record<string, string>): Record<string, PreparedQuery> {
  return Object.fromEntries(
    Object.entries(statements).map(([key, text]) => [
      key,
      { name: `indusagi_${key}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`, text },
    ]),
  );
}

/**
 * A session's row as readers see it: the row's leaf and totals plus its nodes written since the row
 * last took them in (`folded_seq`; see `persist`), at most a few dozen, read from the write-order
 * index (`unfolded`, as `u`). The row is `t`.
 */
const CURRENT = `CASE WHEN u.n > 0 THEN u.last_id ELSE t.leaf END AS leaf,
  (t.nodes + u.n)::float8 AS nodes, (t.records + u.n)::float8 AS records, (t.bytes + u.bytes)::float8 AS bytes,
  (t.input_tokens + u.u_in)::float8 AS input_tokens, (t.output_tokens + u.u_out)::float8 AS output_tokens,
  (t.cache_write_tokens + u.u_cw)::float8 AS cache_write_tokens, (t.cache_read_tokens + u.u_cr)::float8 AS cache_read_tokens,
  (t.cache_write_1h_tokens + u.u_cw1h)::float8 AS cache_write_1h_tokens, u.n::float8 AS unfolded,
  greatest(t.updated_at, u.written_at) AS updated_at, CASE WHEN u.n > 0 THEN NULL ELSE t.tripped END AS tripped`;

/** The nodes of session `session` after `folded`, summed; `tenant`, `session`, `folded` are SQL expressions. */
function unfolded(s: string, tenant = 't.tenant', session = 't.id', folded = 't.folded_seq'): string {
  return `LATERAL (
    SELECT count(*) AS n, coalesce(sum(n.bytes), 0) AS bytes, (array_agg(n.id ORDER BY n.seq DESC))[1] AS last_id, max(n.seq) AS last_seq,
      max(n.written_at) AS written_at,
      coalesce(sum(n.input_tokens), 0) AS u_in, coalesce(sum(n.output_tokens), 0) AS u_out,
      coalesce(sum(n.cache_write_tokens), 0) AS u_cw, coalesce(sum(n.cache_read_tokens), 0) AS u_cr,
      coalesce(sum(n.cache_write_1h_tokens), 0) AS u_cw1h
    FROM ${s}.session_nodes n WHERE n.tenant = ${tenant} AND n.session = ${session} AND n.seq > ${folded}
  ) u`;
}

export function sessionSql(s: string) {
  return prepared({
    /** $1 tenant, $2 session. */
    session: `SELECT ${CURRENT} FROM ${s}.sessions t, ${unfolded(s)} WHERE t.tenant = $1 AND t.id = $2`,

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
     * Persists of several sessions at once (see WriteBatches), each all or nothing and only under its
     * writer's epoch: new nodes (a node already stored is skipped: ids are content hashes, so a retried
     * write adds nothing) and start counts. The `lease` row locks order each session's write against a
     * takeover: whichever commits first, the other sees it; taken in id order, so two batches never
     * wait on each other in a cycle. A session with no row back was fenced.
     *
     * Most steps only add nodes, and their leaf is the last of them: those leave the session's row as
     * it is (rewriting it at every step cost more than the step's own insert), and readers add the
     * nodes after `folded_seq` to it. A write that `folds` (the writer asks: starts or a moved head to
     * record, or enough nodes waiting; or its leaf node was stored already, so no new row names it)
     * takes those nodes into the row's leaf and totals, renews the lease and moves `folded_seq` past
     * them. It sees exactly them: one writer per session, and each of its writes committed before the next.
     *
     * $1 tenant, $2 lease ms; per session: $3 id, $4 epoch, $5 folds, $6 whether the leaf moves,
     * $7 the leaf, $8 records and $9 bytes besides the nodes, $24 the trip standing at the leaf once
     * the write is in (JSON, or null); per node: $10 session, $11 id, $12 parent, $13 condenses,
     * $14 first_kept, $15 node JSON, $16 bytes, $17-$21 usage; per start: $22 session, $23 call id.
     */
    persist: `WITH batch AS (
        SELECT * FROM unnest($3::text[], $4::bigint[], $5::boolean[], $6::boolean[], $7::text[], $8::bigint[], $9::bigint[], $24::text[])
          AS b(session, epoch, folds, moves, leaf, other_records, other_bytes, trip)
      ), lease AS (
        SELECT t.id, t.folded_seq FROM ${s}.sessions t JOIN batch b ON t.id = b.session AND t.lease_epoch = b.epoch
        WHERE t.tenant = $1 ORDER BY t.id FOR UPDATE OF t
      ), input AS (
        SELECT * FROM unnest($10::text[], $11::text[], $12::text[], $13::boolean[], $14::text[], $15::text[], $16::int[],
          $17::bigint[], $18::bigint[], $19::bigint[], $20::bigint[], $21::bigint[])
          WITH ORDINALITY AS i(session, id, parent, condenses, first_kept, node, bytes, u_in, u_out, u_cw, u_cr, u_cw1h, ord)
      ), added AS (
        INSERT INTO ${s}.session_nodes (tenant, session, id, parent, condenses, first_kept, node, bytes,
          input_tokens, output_tokens, cache_write_tokens, cache_read_tokens, cache_write_1h_tokens)
        SELECT $1, session, id, parent, condenses, first_kept, node, bytes, u_in, u_out, u_cw, u_cr, u_cw1h
        FROM input WHERE session IN (SELECT id FROM lease) ORDER BY ord
        ON CONFLICT (tenant, session, id) DO NOTHING
        RETURNING session, id, seq
      ), started AS (
        INSERT INTO ${s}.session_starts AS st (tenant, session, call_id, count)
        SELECT $1, c.session, c.call_id, count(*) FROM unnest($22::text[], $23::text[]) AS c(session, call_id)
        WHERE c.session IN (SELECT id FROM lease) GROUP BY c.session, c.call_id
        ON CONFLICT (tenant, session, call_id) DO UPDATE SET count = st.count + excluded.count
      ), per AS MATERIALIZED (
        SELECT b.session, b.epoch, b.moves, b.leaf, b.other_records, b.other_bytes, b.trip, l.folded_seq,
          b.folds OR (b.moves AND NOT EXISTS (SELECT 1 FROM added a WHERE a.session = b.session AND a.id = b.leaf)) AS folds,
          coalesce(n.n, 0) AS n, coalesce(n.bytes, 0) AS bytes, coalesce(n.last_seq, 0) AS last_seq,
          coalesce(n.u_in, 0) AS u_in, coalesce(n.u_out, 0) AS u_out, coalesce(n.u_cw, 0) AS u_cw, coalesce(n.u_cr, 0) AS u_cr, coalesce(n.u_cw1h, 0) AS u_cw1h
        FROM batch b JOIN lease l ON l.id = b.session LEFT JOIN (
          SELECT a.session, count(*) AS n, sum(i.bytes) AS bytes, max(a.seq) AS last_seq, sum(i.u_in) AS u_in, sum(i.u_out) AS u_out,
            sum(i.u_cw) AS u_cw, sum(i.u_cr) AS u_cr, sum(i.u_cw1h) AS u_cw1h
          FROM added a JOIN input i ON i.session = a.session AND i.id = a.id GROUP BY a.session
        ) n ON n.session = b.session
      ), folded AS (
        UPDATE ${s}.sessions AS t SET
          leaf = CASE WHEN p.moves THEN p.leaf WHEN u.n > 0 THEN u.last_id ELSE t.leaf END,
          tripped = CASE WHEN p.moves THEN p.trip WHEN u.n > 0 THEN NULL ELSE t.tripped END,
          nodes = t.nodes + u.n + p.n,
          records = t.records + u.n + p.n + p.other_records,
          bytes = t.bytes + u.bytes + p.bytes + p.other_bytes,
          input_tokens = t.input_tokens + u.u_in + p.u_in,
          output_tokens = t.output_tokens + u.u_out + p.u_out,
          cache_write_tokens = t.cache_write_tokens + u.u_cw + p.u_cw,
          cache_read_tokens = t.cache_read_tokens + u.u_cr + p.u_cr,
          cache_write_1h_tokens = t.cache_write_1h_tokens + u.u_cw1h + p.u_cw1h,
          folded_seq = greatest(p.folded_seq, coalesce(u.last_seq, 0), p.last_seq),
          lease_expires = now() + $2::float8 * interval '1 millisecond',
          updated_at = now()
        FROM per p, ${unfolded(s, '$1', 'p.session', 'p.folded_seq')}
        WHERE p.folds AND t.tenant = $1 AND t.id = p.session AND t.lease_epoch = p.epoch
      )
      SELECT session, n::int AS added, bytes::float8 AS bytes, folds FROM per`,

    /** Every session of the tenant holding a node, most recently written first, with its first node. $1 tenant. */
    list: `SELECT * FROM (
        SELECT t.id, ${CURRENT},
          (SELECT n.node FROM ${s}.session_nodes n WHERE n.tenant = t.tenant AND n.session = t.id ORDER BY n.seq LIMIT 1) AS first
        FROM ${s}.sessions t, ${unfolded(s)} WHERE t.tenant = $1
      ) c WHERE c.nodes > 0 ORDER BY c.updated_at DESC, c.id`,

    /**
     * A session's row as readers see it (as `session`, and whether any call was recorded as started),
     * one row per node of the first window of its live path (as `nodesBefore` from its leaf, $4 wide)
     * when it has more than $3 nodes; the window's columns are null when there is none. Resuming starts
     * with it: one round trip for the row and, for a conversation that condenses, often its whole
     * context. $1 tenant, $2 session.
     */
    liveStart: `SELECT c.*, w.id AS node_id, w.seq AS node_seq, w.node FROM (
        SELECT ${CURRENT}, EXISTS (SELECT 1 FROM ${s}.session_starts st WHERE st.tenant = $1 AND st.session = $2) AS has_starts
        FROM ${s}.sessions t, ${unfolded(s)} WHERE t.tenant = $1 AND t.id = $2
      ) c LEFT JOIN LATERAL (
        SELECT n.id, n.seq::float8 AS seq, n.node
        FROM (SELECT p.seq FROM ${s}.session_nodes p WHERE c.nodes > $3 AND p.tenant = $1 AND p.session = $2 AND p.id = c.leaf) start
        CROSS JOIN LATERAL (
          SELECT n.id, n.seq, n.node FROM ${s}.session_nodes n
          WHERE n.tenant = $1 AND n.session = $2 AND n.seq <= start.seq AND n.seq > start.seq - $4::bigint
        ) n
      ) w ON true`,

    /**
     * The nodes written in a window before node $3, that node included: those whose write order (`seq`)
     * is at most its own and within $4 of it, in no particular order. A conversation writes its context
     * in order, so resuming reads the live path in a few such windows walking back from the leaf (see
     * `readLivePath`), jumping over history the context left by the node each window starts at. Both
     * halves are bounded whatever the planner decides: one row by primary key, then a range of the
     * write-order index that holds at most $4 rows. $1 tenant, $2 session, $3 node id, $4 window (in seq).
     */
    nodesBefore: `SELECT n.id, n.seq::float8 AS seq, n.node FROM (SELECT p.seq FROM ${s}.session_nodes p WHERE p.tenant = $1 AND p.session = $2 AND p.id = $3) start
      CROSS JOIN LATERAL (
        SELECT n.id, n.seq, n.node FROM ${s}.session_nodes n
        WHERE n.tenant = $1 AND n.session = $2 AND n.seq <= start.seq AND n.seq > start.seq - $4::bigint
      ) n`,

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
     *
     * Each step is a LATERAL subquery with LIMIT 1, which the planner cannot turn into a join: it stays
     * a lookup of one parent by the primary key, whatever the statistics say. Written as a join, a
     * table never analyzed (a new deployment before autovacuum's first pass) got a hash join that
     * hashed the whole session at every step: minutes for a 40,000-node session, 3.5 s once analyzed.
     */
    livePath: `WITH RECURSIVE walk(id, parent, condenses, first_kept, node, target) AS (
        SELECT id, parent, condenses, first_kept, node, NULL::text FROM ${s}.session_nodes
        WHERE tenant = $1 AND session = $2 AND id = $3
        UNION ALL
        SELECT n.id, n.parent, n.condenses, n.first_kept, n.node, coalesce(w.target, CASE WHEN w.condenses THEN w.first_kept END)
        FROM walk w CROSS JOIN LATERAL (
          SELECT p.id, p.parent, p.condenses, p.first_kept, p.node FROM ${s}.session_nodes p
          WHERE p.tenant = $1 AND p.session = $2 AND p.id = w.parent LIMIT 1
        ) n
        WHERE (w.target IS NULL AND NOT w.condenses) OR (coalesce(w.target, CASE WHEN w.condenses THEN w.first_kept END) IS NOT NULL AND w.id <> coalesce(w.target, w.first_kept))
      )
      SELECT node FROM walk`,
  }) as Record<
    | 'session'
    | 'takeLease'
    | 'holder'
    | 'renewLease'
    | 'releaseLease'
    | 'persist'
    | 'list'
    | 'allNodes'
    | 'allStarts'
    | 'startsOf'
    | 'liveStart'
    | 'nodesBefore'
    | 'livePath',
    PreparedQuery
  >;
}
