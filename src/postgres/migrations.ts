// The versioned schema of every PostgreSQL store, one list for all of them: each store names the
// version it needs, `migrate()` applies whatever is missing, in order, in one transaction. Later
// stores (sessions: lease rows, content-addressed nodes, live-path indexes) arrive as later versions
// here. A migration only adds, so the previous release keeps working against a migrated schema
// during a rolling deploy; removing something waits for a later release.

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
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
