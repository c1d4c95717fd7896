// The versioned schema of every PostgreSQL store, one list for all of them: each store names the
// version it needs, `migrate()` applies whatever is missing, in order, in one transaction. A migration
// only adds, so the previous release keeps working against a migrated schema during a rolling deploy;
// removing something waits for a later release.

/** `s` is the quoted schema name, e.g. `"indusagi"`. */
export type Migration = { version: number; name: string; statements: (s: string) => string[] };

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'memory records, term statistics',
    statements: (s) => [
      `CREATE SEQUENCE ${s}.memory_order`,
      `CREATE TABLE ${s}.memory_records (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        tenant text NOT NULL,
        id text NOT NULL,
        ord bigint NOT NULL DEFAULT nextval('${s.replaceAll("'", "''")}.memory_order'),
        text text NOT NULL,
        kind text,
        meta json,
        scope_resource text NOT NULL DEFAULT '',
        scope_session text NOT NULL DEFAULT '',
        source_session text,
        source_node text,
        observed_at double precision NOT NULL,
        key text,
        supersedes text[],
        superseded_by text,
        superseded_at double precision,
        created_at double precision NOT NULL,
        updated_at double precision,
        fingerprint text NOT NULL,
        terms text NOT NULL,
        lexemes tsvector NOT NULL,
        UNIQUE (tenant, id)
      )`,
      `COMMENT ON COLUMN ${s}.memory_records.ord IS 'ranking tie-break: renewed when the text changes, as the in-process index renumbers a re-indexed record'`,
      `COMMENT ON COLUMN ${s}.memory_records.terms IS 'the index terms of text (indusagi''s tokenizer), space separated; term frequencies and lengths come from here'`,
      `COMMENT ON COLUMN ${s}.memory_records.lexemes IS 'the distinct index terms, for the GIN index that finds the records holding a term'`,
      `CREATE INDEX memory_records_lexemes ON ${s}.memory_records USING gin (lexemes)`,
      `CREATE INDEX memory_records_tenant_seq ON ${s}.memory_records (tenant, seq)`,
      `CREATE UNIQUE INDEX memory_records_current_key ON ${s}.memory_records (tenant, scope_resource, scope_session, key)
         WHERE key IS NOT NULL AND superseded_by IS NULL`,
      `CREATE INDEX memory_records_current_fingerprint ON ${s}.memory_records (tenant, scope_resource, scope_session, fingerprint)
         WHERE superseded_by IS NULL`,
      `CREATE TABLE ${s}.memory_terms (
        tenant text NOT NULL,
        term text NOT NULL,
        df bigint NOT NULL,
        PRIMARY KEY (tenant, term)
      )`,
      `CREATE TABLE ${s}.memory_stats (
        tenant text PRIMARY KEY,
        docs bigint NOT NULL,
        total_length bigint NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    name: 'sessions: content-addressed nodes, started calls, leaf and writer lease',
    statements: (s) => [
      `CREATE TABLE ${s}.sessions (
        tenant text NOT NULL,
        id text NOT NULL,
        leaf text,
        nodes bigint NOT NULL DEFAULT 0,
        records bigint NOT NULL DEFAULT 0,
        bytes bigint NOT NULL DEFAULT 0,
        input_tokens bigint NOT NULL DEFAULT 0,
        output_tokens bigint NOT NULL DEFAULT 0,
        cache_write_tokens bigint NOT NULL DEFAULT 0,
        cache_read_tokens bigint NOT NULL DEFAULT 0,
        cache_write_1h_tokens bigint NOT NULL DEFAULT 0,
        lease_holder text,
        lease_epoch bigint NOT NULL DEFAULT 0,
        lease_expires timestamptz,
        PRIMARY KEY (tenant, id)
      )`,
      `COMMENT ON COLUMN ${s}.sessions.lease_epoch IS 'fencing token: raised by every writer that takes the lease; a write commits only under the epoch its writer took'`,
      `COMMENT ON COLUMN ${s}.sessions.records IS 'records written (nodes, started, head), as the file store would count its lines'`,
      `CREATE TABLE ${s}.session_nodes (
        seq bigint GENERATED ALWAYS AS IDENTITY,
        tenant text NOT NULL,
        session text NOT NULL,
        id text NOT NULL,
        parent text,
        condenses boolean NOT NULL,
        first_kept text,
        node text NOT NULL,
        bytes integer NOT NULL,
        PRIMARY KEY (tenant, session, id)
      )`,
      `COMMENT ON COLUMN ${s}.session_nodes.node IS 'the node as JSON text (not jsonb, which cannot hold \\u0000): every string round-trips'`,
      `CREATE INDEX session_nodes_order ON ${s}.session_nodes (tenant, session, seq)`,
      `CREATE TABLE ${s}.session_starts (
        tenant text NOT NULL,
        session text NOT NULL,
        call_id text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (tenant, session, call_id)
      )`,
    ],
  },
  {
    version: 3,
    name: 'sessions: when each was last written, for listing',
    statements: (s) => [`ALTER TABLE ${s}.sessions ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now()`],
  },
  {
    // Changes what the session row means, so writers of versions 2-3 must not run beside it: those
    // never left the development branch (the session tables shipped first with 4).
    version: 4,
    name: 'sessions: steps that only add nodes leave the session row alone',
    statements: (s) => [
      `ALTER TABLE ${s}.sessions ADD COLUMN folded_seq bigint NOT NULL DEFAULT 0`,
      `COMMENT ON COLUMN ${s}.sessions.folded_seq IS 'leaf, totals and updated_at count the session''s nodes up to this seq; readers add the later ones'`,
      `UPDATE ${s}.sessions t SET folded_seq = coalesce((SELECT max(n.seq) FROM ${s}.session_nodes n WHERE n.tenant = t.tenant AND n.session = t.id), 0)`,
      // Constant defaults (now() is fixed for the transaction): existing rows, all taken in above, are not rewritten.
      `ALTER TABLE ${s}.session_nodes ADD COLUMN written_at timestamptz NOT NULL DEFAULT now(),
        ADD COLUMN input_tokens bigint NOT NULL DEFAULT 0, ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_tokens bigint NOT NULL DEFAULT 0, ADD COLUMN cache_read_tokens bigint NOT NULL DEFAULT 0,
        ADD COLUMN cache_write_1h_tokens bigint NOT NULL DEFAULT 0`,
    ],
  },
  {
    // Like 4, released together with the tables before it: no memory writer of 1-4 runs beside it.
    version: 5,
    name: 'memory: a per-tenant version and change log, for replicas of the search index',
    statements: (s) => [
      `ALTER TABLE ${s}.memory_stats ADD COLUMN version bigint NOT NULL DEFAULT 0`,
      `COMMENT ON COLUMN ${s}.memory_stats.version IS 'raised by every write of the tenant, which holds this row until it commits: versions commit in order'`,
      `CREATE TABLE ${s}.memory_changes (
        tenant text NOT NULL,
        version bigint NOT NULL,
        seq bigint NOT NULL,
        PRIMARY KEY (tenant, version, seq)
      )`,
      `COMMENT ON TABLE ${s}.memory_changes IS 'the records (by seq) each version saved, edited, superseded or forgot'`,
    ],
  },
  {
    version: 6,
    name: 'sessions: the guardrail trip standing at the leaf',
    statements: (s) => [
      `ALTER TABLE ${s}.sessions ADD COLUMN tripped text`,
      `COMMENT ON COLUMN ${s}.sessions.tripped IS 'the head that moved the leaf last carried this guardrail trip (JSON); nodes written after folded_seq clear it'`,
    ],
  },
  {
    version: 7,
    name: 'agent server: threads, runs, run events, workers',
    statements: (s) => [
      `CREATE TABLE ${s}.server_threads (
        tenant text NOT NULL,
        id text NOT NULL,
        created_by text NOT NULL,
        metadata text NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        active_run text,
        pending text NOT NULL DEFAULT '[]',
        mark_length integer NOT NULL DEFAULT 0,
        mark_last text,
        PRIMARY KEY (tenant, id)
      )`,
      `COMMENT ON COLUMN ${s}.server_threads.active_run IS 'the one run queued or running on the thread, null when idle'`,
      `COMMENT ON COLUMN ${s}.server_threads.mark_length IS 'the context length after the last run, with mark_last (a digest of its last turn): what a takeover compares with'`,
      `CREATE INDEX server_threads_created ON ${s}.server_threads (tenant, created_at DESC, id)`,
      `CREATE TABLE ${s}.server_runs (
        id text PRIMARY KEY,
        tenant text NOT NULL,
        thread text NOT NULL,
        created_by text NOT NULL,
        input text NOT NULL,
        status text NOT NULL,
        attempt integer NOT NULL DEFAULT 0,
        cancel_requested boolean NOT NULL DEFAULT false,
        worker text,
        job_holder text,
        base_length integer NOT NULL,
        base_last text,
        result text,
        error text,
        events_expired boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz
      )`,
      `COMMENT ON COLUMN ${s}.server_runs.attempt IS 'fencing token: raised by every worker that takes the run; its events and its end are written only under the attempt it took'`,
      `CREATE INDEX server_runs_thread ON ${s}.server_runs (tenant, thread, created_at DESC)`,
      `CREATE INDEX server_runs_worker ON ${s}.server_runs (worker) WHERE status = 'running'`,
      `CREATE INDEX server_runs_finished ON ${s}.server_runs (finished_at) WHERE NOT events_expired`,
      `CREATE TABLE ${s}.server_run_events (
        run text NOT NULL,
        seq bigint NOT NULL,
        event text NOT NULL,
        PRIMARY KEY (run, seq)
      )`,
      `COMMENT ON COLUMN ${s}.server_run_events.event IS 'the event as JSON text (not jsonb, which cannot hold \\u0000)'`,
      `CREATE TABLE ${s}.server_tenants (
        tenant text PRIMARY KEY,
        active integer NOT NULL DEFAULT 0
      )`,
      `COMMENT ON COLUMN ${s}.server_tenants.active IS 'runs of the tenant queued or running: raised when one is queued, lowered when it ends; what the per-tenant cap checks'`,
      `CREATE TABLE ${s}.server_workers (
        id text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now()
      )`,
      `COMMENT ON TABLE ${s}.server_workers IS 'live worker processes; a row whose heartbeat is older than the lease is a dead worker, whose runs others take over'`,
    ],
  },
  {
    version: 8,
    name: 'agent server: answers to the questions of running runs',
    statements: (s) => [
      `CREATE TABLE ${s}.server_run_answers (
        tenant text NOT NULL,
        run text NOT NULL,
        request_id text NOT NULL,
        answer text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (tenant, run, request_id)
      )`,
      `COMMENT ON TABLE ${s}.server_run_answers IS 'one answer per question a running run''s tool asked; the NOTIFY that follows only wakes the worker executing the run, which reads it here, and reads again whenever its LISTEN connection comes back (a notification sent while it was down is lost)'`,
    ],
  },
  {
    // Only the record of which embedder the schema's vectors come from. The vectors' own table needs
    // the embedder's dimensions (vector(N)) and the pgvector extension, neither known to a migration:
    // the first memory store given an embedder creates it (see memory-vectors.ts), so a schema whose
    // stores never embed needs no extension.
    version: 9,
    name: 'memory: the embedder whose vectors the schema keeps',
    statements: (s) => [
      `CREATE TABLE ${s}.memory_embedder (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        id text NOT NULL,
        dimensions integer NOT NULL CHECK (dimensions > 0),
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      `COMMENT ON TABLE ${s}.memory_embedder IS 'at most one row: the embedder (id, dimensions) of memory_vectors, which is created with it; a store given another embedder is refused'`,
    ],
  },
  {
    version: 10,
    name: 'memory: working memory, one block per scope',
    statements: (s) => [
      `CREATE TABLE ${s}.working_memory (
        tenant text NOT NULL,
        scope_resource text NOT NULL,
        scope_session text NOT NULL,
        content text,
        version bigint NOT NULL,
        updated_at double precision NOT NULL,
        PRIMARY KEY (tenant, scope_resource, scope_session)
      )`,
      `COMMENT ON COLUMN ${s}.working_memory.content IS 'the block as JSON text; null once forgotten, the row kept so its version is never handed out again'`,
      `COMMENT ON COLUMN ${s}.working_memory.version IS 'raised by every write; a write names the version it read and changes nothing when the block moved on'`,
    ],
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
