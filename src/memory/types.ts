/**
 * Who a record belongs to. Each part is optional: a record with no scope is shared (global), one with
 * only `resource` (a user, a customer, a project) belongs to that resource, one with `session` too to
 * that one conversation of it.
 */
export interface MemoryScope {
  resource?: string;
  session?: string;
}

/** Where a record came from: the session and node (turn) it was learned in, and when. */
export interface MemoryProvenance {
  sessionId?: string;
  nodeId?: string;
  /** Epoch ms the fact was observed; the record's `createdAt` unless the saver said otherwise. */
  at: number;
}

/** One remembered item. `score` is set by `search`, higher meaning more relevant. */
export interface MemoryRecord {
  id: string;
  text: string;
  kind?: string;
  meta?: Record<string, unknown>;
  createdAt: number;
  score?: number;
  /** Absent: a shared (global) record. */
  scope?: MemoryScope;
  /** Set on every record indusagi's stores hand out. */
  provenance?: MemoryProvenance;
  /** A topic slot: saving another record with this key in the same scope supersedes this one. */
  key?: string;
  /** The records this one retired when it was saved. */
  supersedes?: string[];
  /** The record that retired this one; a superseded record is kept but not recalled by default. */
  supersededBy?: string;
  supersededAt?: number;
  /** When `update` last changed the record. */
  updatedAt?: number;
}

/** Options for `save`. */
export interface SaveOptions {
  kind?: string;
  meta?: Record<string, unknown>;
  scope?: MemoryScope;
  provenance?: { sessionId?: string; nodeId?: string; at?: number };
  key?: string;
  /** Records this one corrects or replaces; each must be current and in exactly this scope. */
  supersedes?: string | string[];
  /**
   * What surrounded the record when it was said (for a conversation turn: the turns before it and the
   * session's date). Its words are indexed at half the weight of the record's own, so a search for
   * what the context says finds the record, below records that say it themselves. It is not part of the
   * record: search returns the text only, and `update` of the text keeps the context's words.
   */
  context?: string;
}

/** Options for `search`. */
export interface SearchOptions {
  k?: number;
  kind?: string;
  minScore?: number;
  /** The reader's scope: it sees shared records and those whose every scope part matches it. Default `{}`. */
  scope?: MemoryScope;
  /** Also return superseded records. Default false. */
  includeSuperseded?: boolean;
  /** Only records said at or after this time (epoch ms, `provenance.at`): the turn's time, not the save's. */
  since?: number;
  /** Only records said before this time (epoch ms, `provenance.at`). */
  until?: number;
  /**
   * Which ranking orders the hits when the store has an embedder: `hybrid` (default) fuses the words
   * and the vector rankings, `words` and `vector` use one alone. A store without an embedder ranks by
   * words whatever this says, except `vector`, which it refuses.
   */
  ranking?: 'hybrid' | 'words' | 'vector';
  /** Cancels the query's embedding. */
  signal?: AbortSignal;
}

/** Options for `recallMemory` (and the `search` it performs). */
export interface RecallOptions extends SearchOptions {
  /** Most records returned. Default 5. */
  k?: number;
  kind?: string;
  /** Only records scoring above this. Default 0. */
  minScore?: number;
}

/** Options for `list`, `get`, `update` and `forget`: management is by owner. */
export interface OwnerOptions {
  /** Only records this owner holds: every part it sets matches the record's. Default `{}`: every record. */
  scope?: MemoryScope;
}

export interface ListOptions extends OwnerOptions {
  kind?: string;
  /** Also list superseded records. Default false. */
  includeSuperseded?: boolean;
}

/** A change to a stored record; `null` removes `kind` or `meta`. */
export interface MemoryEdit {
  text?: string;
  kind?: string | null;
  meta?: Record<string, unknown> | null;
}

/** The interface a memory backend implements. Members past `forget` are optional: a store may not list or edit. */
export interface MemoryStore {
  save(text: string, opts?: SaveOptions): Promise<MemoryRecord>;
  search(query: string, opts?: SearchOptions): Promise<MemoryRecord[]>;
  /** false if no record had that id */
  forget(id: string, opts?: OwnerOptions): Promise<boolean>;
  /** optional; omit if the store can't list. Every record, superseded ones included, in save order. */
  all?(): Promise<MemoryRecord[]>;
  /** The record with this id, superseded or not; undefined if there is none (for this owner). */
  get?(id: string, opts?: OwnerOptions): Promise<MemoryRecord | undefined>;
  /** Records in save order; current ones only unless `includeSuperseded`. */
  list?(opts?: ListOptions): Promise<MemoryRecord[]>;
  /** Edits a record in place and returns it; undefined if there is none (for this owner). */
  update?(id: string, edit: MemoryEdit, opts?: OwnerOptions): Promise<MemoryRecord | undefined>;
}

/** A store with every optional member: what indusagi's stores implement. */
export interface GovernedMemoryStore extends MemoryStore {
  all(): Promise<MemoryRecord[]>;
  get(id: string, opts?: OwnerOptions): Promise<MemoryRecord | undefined>;
  list(opts?: ListOptions): Promise<MemoryRecord[]>;
  update(id: string, edit: MemoryEdit, opts?: OwnerOptions): Promise<MemoryRecord | undefined>;
}

/**
 * A working-memory block: one small JSON value per scope (a user's profile, a thread's task state) that
 * the agent sees every turn and rewrites as it learns, unlike records, which accumulate and are searched.
 * `version` is raised by every write of the scope's block; a write names the version it read.
 */
export interface WorkingMemory {
  /** Any JSON value: an object, an array, a string, a number, true/false or null. */
  content: unknown;
  /** 1 for the first write; raised by one on every later write (also after a forget: versions never repeat). */
  version: number;
}

/** Options for `setWorking`. */
export interface SetWorkingOptions {
  /**
   * The version the writer read (`getWorking(scope)?.version`), 0 when there was no block. The write
   * succeeds only if the block is still at that version; otherwise it throws `WorkingMemoryConflictError`
   * and nothing changes.
   */
  expectedVersion: number;
}

/**
 * Working memory, one block per exact scope (`{ resource }` for a user, `{ resource, session }` for one
 * thread of that user, `{}` for a block shared by all): a scope reads and writes only its own block,
 * never a broader or narrower one. Implemented by every indusagi memory store.
 */
export interface WorkingMemoryStore {
  /** The scope's block; undefined when it has none (never written, or forgotten). */
  getWorking(scope: MemoryScope): Promise<WorkingMemory | undefined>;
  /** Replaces the scope's block if it is still at `expectedVersion`; resolves to the new block. */
  setWorking(scope: MemoryScope, content: unknown, opts: SetWorkingOptions): Promise<WorkingMemory>;
  /** Deletes the scope's block; false when it had none. The next write expects version 0. */
  forgetWorking(scope: MemoryScope): Promise<boolean>;
}
