import type {
  GovernedMemoryStore,
  MemoryEdit,
  MemoryRecord,
  MemoryScope,
  ListOptions,
  OwnerOptions,
  SaveOptions,
  SearchOptions,
  SetWorkingOptions,
  WorkingMemory,
  WorkingMemoryStore,
} from '../memory/types.js';
import { resolveList, resolveOwner } from '../memory/options.js';
import { checkConnection, type PostgresConnection } from './driver.js';
import { checkLimits, checkSchemaName, PostgresDatabase, type MigrateResult, type StatementLimitOptions } from './database.js';
import { PostgresOptionsError } from './errors.js';
import { checkTenant } from './tenant.js';
import { MemoryReplica } from './memory-replica.js';
import { COLUMNS, ownerFilter, toRecord, type MemoryTables, type Row } from './memory-rows.js';
import { searchMemories } from './memory-search.js';
import { forgetMemory, saveMemory, updateMemory } from './memory-writes.js';
import { forgetWorking, getWorking, setWorking } from './working-memory.js';
import { DEFAULT_VECTOR_EXACT_LIMIT, MemoryVectors } from './memory-vectors.js';
import { checkEmbedder, type Embedder } from '../memory/embedder.js';

/** The schema version the memory tables need: 1 added them, 5 the change log replicas read (working memory needs 10). */
const MEMORY_VERSION = 5;
/** With an embedder: 9 added the record of the schema's embedder. */
const VECTOR_VERSION = 9;

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
  /**
   * Keeps a vector per record in pgvector and ranks by meaning as well as by words (fused as in every
   * store, see docs/memory.md). The first store given one creates the extension (when the role may) and
   * the vectors table; the schema then keeps that embedder's vectors, and a store given another is
   * refused with `PostgresEmbedderMismatchError`. Records saved without it are embedded by the next search.
   */
  embedder?: Embedder;
  /**
   * A vector search whose filters let through at most this many records ranks them exactly, without
   * the HNSW index (default 1000): exact is both right and fast on a small set, where an index scan
   * would read far past it. 0 always goes through the index (still falling back to exact when it finds too few).
   */
  vectorExactLimit?: number;
} & StatementLimitOptions;

/**
 * A `MemoryStore` in PostgreSQL, shared by every process that reaches the database. Records are
 * found through a GIN index over their index terms (indusagi's tokenizer, the same in every store,
 * so a query finds the same records here as in the in-process and SQLite stores) and ranked with the
 * same BM25, from per-tenant term statistics kept in step with every write. With an `embedder` it
 * also keeps a vector per record in pgvector (HNSW, cosine) and fuses the two rankings. The tables
 * come from `migrate()`, never from first use (except the vectors table, whose column needs the
 * embedder's dimensions); a store whose schema is behind rejects every call with
 * `PostgresSchemaBehindError`. Each write is one transaction, retried when a concurrent writer
 * deadlocks it or takes the same key slot first. Working memory (one block per tenant and scope) needs
 * schema version 10; on an older schema only its calls are refused.
 */
export class PostgresMemoryStore implements GovernedMemoryStore, WorkingMemoryStore {
  readonly schema: string;
  readonly tenant: string | undefined;
  private readonly tables: MemoryTables;
  private readonly replica: MemoryReplica | undefined;

  constructor(connection: PostgresConnection, options: PostgresStoreOptions = {}) {
    const checked = checkConnection(connection);
    if (typeof options !== 'object' || options === null)
      throw new PostgresOptionsError(
        'options must be an object: { schema?, tenant?, replica?, embedder?, vectorExactLimit?, statementTimeoutMs?, lockTimeoutMs? }.',
      );
    if (options.replica !== undefined && typeof options.replica !== 'boolean')
      throw new PostgresOptionsError(`replica must be true or false, got ${JSON.stringify(options.replica)}.`);
    const exactLimit = options.vectorExactLimit ?? DEFAULT_VECTOR_EXACT_LIMIT;
    if (!Number.isSafeInteger(exactLimit) || exactLimit < 0)
      throw new PostgresOptionsError(`vectorExactLimit must be a whole number >= 0, got ${JSON.stringify(options.vectorExactLimit)}.`);
    const embedder = options.embedder === undefined ? undefined : checkEmbedder(options.embedder);
    this.schema = checkSchemaName(options.schema);
    this.tenant = checkTenant(options.tenant);
    const t = this.tenant ?? '';
    const db = new PostgresDatabase(checked, this.schema, embedder === undefined ? MEMORY_VERSION : VECTOR_VERSION, checkLimits(options));
    const vectors = embedder === undefined ? undefined : new MemoryVectors(embedder, db, t, exactLimit);
    this.tables = { db, t, table: `${db.s}.memory_records`, vectors };
    this.replica = options.replica === true ? new MemoryReplica(db.s, t) : undefined;
  }

  /** Creates or upgrades the schema's tables (every indusagi store's); safe to run from many processes. */
  migrate(): Promise<MigrateResult> {
    return this.tables.db.migrate();
  }

  /** Ends the pool the store made from a connection string (a pool you passed stays yours). Safe to call twice. */
  close(): Promise<void> {
    return this.tables.db.close();
  }

  save(text: string, opts?: SaveOptions): Promise<MemoryRecord> {
    return saveMemory(this.tables, text, opts);
  }

  search(query: string, opts?: SearchOptions): Promise<MemoryRecord[]> {
    return searchMemories(this.tables, this.replica, query, opts);
  }

  forget(id: string, opts?: OwnerOptions): Promise<boolean> {
    return forgetMemory(this.tables, id, opts);
  }

  async all(): Promise<MemoryRecord[]> {
    const { db, t, table } = this.tables;
    return (await db.query<Row>(`SELECT ${COLUMNS} FROM ${table} WHERE tenant = $1 ORDER BY seq`, [t])).map(toRecord);
  }

  async get(id: string, opts?: OwnerOptions): Promise<MemoryRecord | undefined> {
    const { db, t, table } = this.tables;
    const { scope } = resolveOwner(id, opts);
    const owner = ownerFilter(scope, 3);
    const [row] = await db.query<Row>(`SELECT ${COLUMNS} FROM ${table} WHERE tenant = $1 AND id = $2 AND ${owner.sql}`, [
      t,
      id,
      ...owner.values,
    ]);
    return row === undefined ? undefined : toRecord(row);
  }

  async list(opts?: ListOptions): Promise<MemoryRecord[]> {
    const { db, t, table } = this.tables;
    const { kind, scope, includeSuperseded } = resolveList(opts);
    const owner = ownerFilter(scope, 2);
    const values: unknown[] = [t, ...owner.values];
    let filter = `tenant = $1 AND ${owner.sql}`;
    if (!includeSuperseded) filter += ' AND superseded_by IS NULL';
    if (kind !== undefined) filter += ` AND kind = $${values.push(kind)}`;
    return (await db.query<Row>(`SELECT ${COLUMNS} FROM ${table} WHERE ${filter} ORDER BY seq`, values)).map(toRecord);
  }

  update(id: string, edit: MemoryEdit, opts?: OwnerOptions): Promise<MemoryRecord | undefined> {
    return updateMemory(this.tables, id, edit, opts);
  }

  getWorking(scope: MemoryScope): Promise<WorkingMemory | undefined> {
    return getWorking(this.tables.db, this.tables.t, scope);
  }

  setWorking(scope: MemoryScope, content: unknown, opts: SetWorkingOptions): Promise<WorkingMemory> {
    return setWorking(this.tables.db, this.tables.t, scope, content, opts);
  }

  forgetWorking(scope: MemoryScope): Promise<boolean> {
    return forgetWorking(this.tables.db, this.tables.t, scope);
  }
}
