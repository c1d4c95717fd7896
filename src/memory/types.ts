/** One remembered item. `score` is set by `search`, higher meaning more relevant. */
export interface MemoryRecord {
  id: string;
  text: string;
  kind?: string;
  meta?: Record<string, unknown>;
  createdAt: number;
  score?: number;
}

/** Options for `recallMemory` (and the `search` it performs). */
export interface RecallOptions {
  /** Most records returned. Default 5. */
  k?: number;
  kind?: string;
  /** Only records scoring above this. Default 0. */
  minScore?: number;
}

/** The interface a memory backend implements. */
export interface MemoryStore {
  save(text: string, opts?: { kind?: string; meta?: Record<string, unknown> }): Promise<MemoryRecord>;
  search(query: string, opts?: { k?: number; kind?: string; minScore?: number }): Promise<MemoryRecord[]>;
  /** false if no record had that id */
  forget(id: string): Promise<boolean>;
  /** optional; omit if the store can't list */
  all?(): Promise<MemoryRecord[]>;
}
