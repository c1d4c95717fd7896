import { randomUUID } from 'node:crypto';
import { searchTermSource, tokenize, type RankedRef, type TermSource } from '../search/index.js';
import type {
  GovernedMemoryStore,
  MemoryEdit,
  MemoryRecord,
  MemoryScope,
  ListOptions,
  OwnerOptions,
  SaveOptions,
  SearchOptions,
} from '../memory/types.js';
import { checkEdit, checkSave, resolveList, resolveOwner, resolveSearch } from '../memory/options.js';
import { fingerprint, newRecord, sameScope } from '../memory/governance.js';
import { chooseTargets } from '../memory/supersede.js';
import { recordFromRow, scopeColumns, scopeOfRow, type MemoryRow } from '../memory/rows.js';
import { checkConnection, type ClientLike, type PostgresConnection } from './driver.js';
import { checkLimits, checkSchemaName, PostgresDatabase, type MigrateResult, type StatementLimitOptions } from './database.js';
import { PostgresOptionsError } from './errors.js';
import { checkTenant } from './tenant.js';
import { MemoryReplica, type ReplicaFilter } from './memory-replica.js';

/** The schema version the memory tables need: 1 added them, 5 the change log replicas read. */
const MEMORY_VERSION = 5;

export type PostgresStoreOptions = {
  /** The PostgreSQL schema holding the tables. Default `indusagi`. */
  schema?: string;
  /** Every query is confined to this tenant's rows; without one, to the default tenant's. */
  tenant?: string;
  /**
   * Keep a copy of the tenant's search index in this process (default false). Each search then costs
   * one small query when nothing was written since the last one, plus the records it returns, instead
   * of reading every record that holds the query's rarest term; the copy follows every process's
   * writes through the database's change log. It holds each record's index terms in memory, so it
   * suits a tenant of up to a few hundred thousand memories. Results and scores are the same either way.
   */
  replica?: boolean;
} & StatementLimitOptions;

type Row = MemoryRow & { meta: string | null; supersedes: string[] | null };

const COLUMNS = `seq::float8 AS seq, id, text, kind, meta::text AS meta, scope_resource, scope_session, source_session, source_node,
  observed_at, key, supersedes, superseded_by, superseded_at, created_at, updated_at, fingerprint`;

/**
 * A `MemoryStore` in PostgreSQL, shared by every process that reaches the database. Records are
 * found through a GIN index over their index terms (indusagi's tokenizer, the same in every store,
 * so a query finds the same records here as in the in-process and SQLite stores) and ranked with the
 * same BM25, from per-tenant term statistics kept in step with every write. The tables come from
 * `migrate()`, never from first use; a store whose schema is behind rejects every call with
 * `PostgresSchemaBehindError`. Each write is one transaction, retried when a concurrent writer
 * deadlocks it or takes the same key slot first.
 */
export class PostgresMemoryStore implements GovernedMemoryStore {
  readonly schema: string;
  readonly tenant: string | undefined;
  private readonly db: PostgresDatabase;
  private readonly t: string;
  private readonly table: string;
  private readonly replica: MemoryReplica | undefined;

  constructor(connection: PostgresConnection, options: PostgresStoreOptions = {}) {
    const checked = checkConnection(connection);
    if (typeof options !== 'object' || options === null)
      throw new PostgresOptionsError('options must be an object: { schema?, tenant?, replica?, statementTimeoutMs?, lockTimeoutMs? }.');
    if (options.replica !== undefined && typeof options.replica !== 'boolean')
      throw new PostgresOptionsError(`replica must be true or false, got ${JSON.stringify(options.replica)}.`);
    this.schema = checkSchemaName(options.schema);
    this.tenant = checkTenant(options.tenant);
    this.t = this.tenant ?? '';
    this.db = new PostgresDatabase(checked, this.schema, MEMORY_VERSION, checkLimits(options));
    this.table = `${this.db.s}.memory_records`;
    this.replica = options.replica === true ? new MemoryReplica(this.db.s, this.t) : undefined;
  }

  /** Creates or upgrades the schema's tables (every indusagi store's); safe to run from many processes. */
  migrate(): Promise<MigrateResult> {
    return this.db.migrate();
  }

  /** Ends the pool the store made from a connection string (a pool you passed stays yours). Safe to call twice. */
  close(): Promise<void> {
    return this.db.close();
  }

  async save(text: string, opts?: SaveOptions): Promise<MemoryRecord> {
    const save = checkSave(text, opts);
    const print = fingerprint(text);
    const terms = tokenize(text);
    const { resource, session } = scopeColumns(save.scope);
    return this.db.transaction(
      async (c) => {
        // Saves that could retire the same records (the same key slot, the same fact restated) take
        // turns: transaction-scoped locks, released at commit, which also hold behind a pooler.
        const slots = [JSON.stringify([this.t, resource, session, 'print', save.kind ?? null, print])];
        if (save.key !== undefined) slots.push(JSON.stringify([this.t, resource, session, 'key', save.key]));
        await c.query(
          `SELECT count(pg_advisory_xact_lock(h)) FROM (SELECT hashtextextended(slot, 0) AS h FROM unnest($1::text[]) AS slot ORDER BY 1) AS slots`,
          [slots],
        );
        const now = Date.now();
        // One read for the three kinds of target, rows locked so a concurrent save waits its turn.
        const found = await rows<Row>(
          c,
          `SELECT ${COLUMNS} FROM ${this.table}
           WHERE tenant = $1 AND (id = ANY($2) OR (scope_resource = $3 AND scope_session = $4 AND superseded_by IS NULL
             AND (key = $5 OR (fingerprint = $6 AND kind IS NOT DISTINCT FROM $7))))
           ORDER BY id FOR UPDATE`,
          [this.t, save.supersedes, resource, session, save.key ?? null, print, save.kind ?? null],
        );
        const wrapped = found.map((row) => ({ record: toRecord(row), row }));
        const current = (w: (typeof wrapped)[number]) => w.row.superseded_by === null && sameScope(scopeOfRow(w.row), save.scope);
        const targets = chooseTargets(
          save,
          new Map(wrapped.filter((w) => save.supersedes.includes(w.row.id)).map((w) => [w.row.id, w])),
          wrapped.filter((w) => current(w) && save.key !== undefined && w.row.key === save.key),
          wrapped.filter((w) => current(w) && w.row.fingerprint === print && w.row.kind === (save.kind ?? null)),
        );
        const record = newRecord(randomUUID(), text, save, now);
        if (targets.length > 0) {
          record.supersedes = targets.map((w) => w.row.id);
          await c.query(`UPDATE ${this.table} SET superseded_by = $3, superseded_at = $4 WHERE tenant = $1 AND id = ANY($2)`, [
            this.t,
            record.supersedes,
            record.id,
            now,
          ]);
        }
        // Statistics first: their row, held to commit, orders this save's `ord` (taken by the insert) and
        // its version alike across concurrent saves, as replicas number documents (see MemoryReplica).
        await this.count(c, terms, 1);
        const [added] = await rows<{ seq: number }>(
          c,
          `INSERT INTO ${this.table} (tenant, id, text, kind, meta, scope_resource, scope_session, source_session, source_node, observed_at,
             key, supersedes, created_at, fingerprint, terms, lexemes)
           VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, array_to_tsvector($16::text[]))
           RETURNING seq::float8 AS seq`,
          [
            this.t,
            record.id,
            text,
            save.kind ?? null,
            save.meta ?? null,
            resource,
            session,
            save.provenance.sessionId ?? null,
            save.provenance.nodeId ?? null,
            record.provenance!.at,
            save.key ?? null,
            record.supersedes ?? null,
            now,
            print,
            terms.join(' '),
            distinct(terms),
          ],
        );
        await this.changed(c, [added.seq, ...targets.map((w) => w.row.seq)]);
        return record;
      },
      { retryOnUnique: (constraint) => constraint === 'memory_records_current_key' },
    );
  }

  async search(query: string, opts?: SearchOptions): Promise<MemoryRecord[]> {
    const { k, kind, minScore, scope, includeSuperseded } = resolveSearch(query, opts);
    const terms = tokenize(query);
    if (k === 0 || terms.length === 0) return [];
    // What the reader is entitled to: shared records and its own scope's.
    const filter: ReplicaFilter = {
      resources: scope.resource === undefined ? [''] : ['', scope.resource],
      sessions: scope.session === undefined ? [''] : ['', scope.session],
      current: !includeSuperseded,
      kind,
    };
    return this.db.transaction(
      async (c) => {
        let ranked: RankedRef[];
        if (this.replica === undefined) ranked = await this.rank(c, terms, { k, minScore, filter });
        else {
          await this.replica.catchUp(c);
          ranked = this.replica.search(terms, { k, minScore, filter });
        }
        if (ranked.length === 0) return [];
        const found = await rows<Row>(c, `SELECT ${COLUMNS} FROM ${this.table} WHERE tenant = $1 AND seq = ANY($2::bigint[])`, [
          this.t,
          ranked.map((r) => r.ref),
        ]);
        const bySeq = new Map(found.map((row) => [row.seq, row]));
        // A replica a concurrent search moved past this snapshot may name a record this snapshot lacks.
        return ranked.flatMap(({ ref, score }) => {
          const row = bySeq.get(ref);
          return row === undefined ? [] : [{ ...toRecord(row), score }];
        });
      },
      { readOnly: true },
    );
  }

  /** Ranks in the database: term statistics, then the records holding each term, rarest first (see searchTermSource). */
  private rank(c: ClientLike, terms: string[], opts: { k: number; minScore: number; filter: ReplicaFilter }): Promise<RankedRef[]> {
    const { filter: f } = opts;
    const values: unknown[] = [this.t, f.resources, f.sessions];
    let filter = 'tenant = $1 AND scope_resource = ANY($2) AND scope_session = ANY($3)';
    if (f.current) filter += ' AND superseded_by IS NULL';
    if (f.kind !== undefined) filter += ` AND kind = $${values.push(f.kind)}`;
    const source: TermSource = {
      stats: async (asked) => {
        const [row] = await rows<{ docs: number; total: number; df: Record<string, number> | null }>(
          c,
          `SELECT coalesce((SELECT docs FROM ${this.db.s}.memory_stats WHERE tenant = $1), 0)::float8 AS docs,
                  coalesce((SELECT total_length FROM ${this.db.s}.memory_stats WHERE tenant = $1), 0)::float8 AS total,
                  (SELECT json_object_agg(term, df) FROM ${this.db.s}.memory_terms WHERE tenant = $1 AND term = ANY($2)) AS df`,
          [this.t, asked],
        );
        return { docs: row.docs, totalLength: row.total, df: new Map(Object.entries(row.df ?? {})) };
      },
      containing: (term, without) =>
        rows(
          c,
          `SELECT seq::float8 AS ref, ord::float8 AS "order", terms FROM ${this.table} WHERE ${filter} AND lexemes @@ $${values.length + 1}::tsquery`,
          [...values, tsquery(term, without)],
        ),
    };
    return searchTermSource(source, terms, { k: opts.k, minScore: opts.minScore });
  }

  async forget(id: string, opts?: OwnerOptions): Promise<boolean> {
    const { scope } = resolveOwner(id, opts);
    const owner = this.owner(scope, 3);
    return this.db.transaction(async (c) => {
      const [gone] = await rows<{ terms: string; seq: number }>(
        c,
        `DELETE FROM ${this.table} WHERE tenant = $1 AND id = $2 AND ${owner.sql} RETURNING terms, seq::float8 AS seq`,
        [this.t, id, ...owner.values],
      );
      if (gone === undefined) return false;
      await this.count(c, split(gone.terms), -1);
      await this.changed(c, [gone.seq]);
      return true;
    });
  }

  async all(): Promise<MemoryRecord[]> {
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM ${this.table} WHERE tenant = $1 ORDER BY seq`, [this.t])).map(toRecord);
  }

  async get(id: string, opts?: OwnerOptions): Promise<MemoryRecord | undefined> {
    const { scope } = resolveOwner(id, opts);
    const owner = this.owner(scope, 3);
    const [row] = await this.db.query<Row>(`SELECT ${COLUMNS} FROM ${this.table} WHERE tenant = $1 AND id = $2 AND ${owner.sql}`, [
      this.t,
      id,
      ...owner.values,
    ]);
    return row === undefined ? undefined : toRecord(row);
  }

  async list(opts?: ListOptions): Promise<MemoryRecord[]> {
    const { kind, scope, includeSuperseded } = resolveList(opts);
    const owner = this.owner(scope, 2);
    const values: unknown[] = [this.t, ...owner.values];
    let filter = `tenant = $1 AND ${owner.sql}`;
    if (!includeSuperseded) filter += ' AND superseded_by IS NULL';
    if (kind !== undefined) filter += ` AND kind = $${values.push(kind)}`;
    return (await this.db.query<Row>(`SELECT ${COLUMNS} FROM ${this.table} WHERE ${filter} ORDER BY seq`, values)).map(toRecord);
  }

  async update(id: string, edit: MemoryEdit, opts?: OwnerOptions): Promise<MemoryRecord | undefined> {
    const { scope } = resolveOwner(id, opts);
    const change = checkEdit(edit);
    const owner = this.owner(scope, 3);
    return this.db.transaction(async (c) => {
      const [row] = await rows<Row & { terms: string }>(
        c,
        `SELECT ${COLUMNS}, terms FROM ${this.table} WHERE tenant = $1 AND id = $2 AND ${owner.sql} FOR UPDATE`,
        [this.t, id, ...owner.values],
      );
      if (row === undefined) return undefined;
      const now = Date.now();
      const text = change.text ?? row.text;
      const reindex = text !== row.text;
      const terms = reindex ? tokenize(text) : split(row.terms);
      if (reindex) {
        await this.count(c, split(row.terms), -1);
        await this.count(c, terms, 1);
      }
      const [updated] = await rows<Row>(
        c,
        `UPDATE ${this.table} SET text = $3, kind = $4, meta = $5::json, updated_at = $6, fingerprint = $7, terms = $8,
           lexemes = array_to_tsvector($9::text[]), ord = CASE WHEN $10 THEN nextval('${this.db.s}.memory_order') ELSE ord END
         WHERE tenant = $1 AND id = $2 RETURNING ${COLUMNS}`,
        [
          this.t,
          id,
          text,
          change.kind === undefined ? row.kind : change.kind,
          change.meta === undefined ? row.meta : change.meta,
          now,
          reindex ? fingerprint(text) : row.fingerprint,
          terms.join(' '),
          distinct(terms),
          reindex,
        ],
      );
      await this.changed(c, [updated.seq]);
      return toRecord(updated);
    });
  }

  /**
   * Raises the tenant's version and logs the records this write changed, for replicas (see `replica`).
   * The version row stays locked until commit, so versions commit in order.
   */
  private async changed(c: ClientLike, seqs: number[]): Promise<void> {
    const s = this.db.s;
    await c.query(
      `WITH v AS (
         INSERT INTO ${s}.memory_stats AS m (tenant, docs, total_length, version) VALUES ($1, 0, 0, 1)
         ON CONFLICT (tenant) DO UPDATE SET version = m.version + 1 RETURNING version)
       INSERT INTO ${s}.memory_changes (tenant, version, seq) SELECT $1, v.version, seq FROM v, unnest($2::bigint[]) AS seq
       ON CONFLICT DO NOTHING`,
      [this.t, seqs],
    );
  }

  /** Keeps the tenant's BM25 statistics in step: document count, total length, df of each distinct term. */
  private async count(c: ClientLike, terms: string[], sign: 1 | -1): Promise<void> {
    const s = this.db.s;
    // Rows are locked in sorted term order by every writer, so two writers never deadlock on them.
    const unique = distinct(terms);
    if (sign === 1) {
      await c.query(
        `WITH terms AS (
           INSERT INTO ${s}.memory_terms AS t (tenant, term, df) SELECT $1, term, 1 FROM unnest($2::text[]) AS term
           ON CONFLICT (tenant, term) DO UPDATE SET df = t.df + 1)
         INSERT INTO ${s}.memory_stats AS m (tenant, docs, total_length) VALUES ($1, 1, $3)
         ON CONFLICT (tenant) DO UPDATE SET docs = m.docs + 1, total_length = m.total_length + $3`,
        [this.t, unique, terms.length],
      );
    } else {
      await c.query(
        `WITH terms AS (UPDATE ${s}.memory_terms SET df = df - 1 WHERE tenant = $1 AND term = ANY($2))
         UPDATE ${s}.memory_stats SET docs = docs - 1, total_length = total_length - $3 WHERE tenant = $1`,
        [this.t, unique, terms.length],
      );
      await c.query(`DELETE FROM ${s}.memory_terms WHERE tenant = $1 AND term = ANY($2) AND df <= 0`, [this.t, unique]);
    }
  }

  /** The SQL for "owned by `scope`": each part the owner sets must match; parameters start at $`from`. */
  private owner(scope: MemoryScope, from: number): { sql: string; values: string[] } {
    const parts: string[] = ['TRUE'];
    const values: string[] = [];
    if (scope.resource !== undefined) parts.push(`scope_resource = $${from + values.push(scope.resource) - 1}`);
    if (scope.session !== undefined) parts.push(`scope_session = $${from + values.push(scope.session) - 1}`);
    return { sql: parts.join(' AND '), values };
  }
}

async function rows<T>(c: ClientLike, sql: string, values: unknown[]): Promise<T[]> {
  return (await c.query(sql, values)).rows as T[];
}

const distinct = (terms: string[]) => [...new Set(terms)].sort();
const split = (terms: string) => (terms === '' ? [] : terms.split(' '));

/** A tsquery for "has `term`, has none of `without`", built from lexemes: no user text is parsed as syntax. */
function tsquery(term: string, without: readonly string[]): string {
  const quote = (lexeme: string) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  return without.length === 0 ? quote(term) : `${quote(term)} & !(${without.map(quote).join(' | ')})`;
}

function toRecord(row: Row): MemoryRecord {
  return recordFromRow(row, { meta: row.meta === null ? undefined : JSON.parse(row.meta), supersedes: row.supersedes });
}
