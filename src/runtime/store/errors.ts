import { IndusagiError } from '../../errors/index.js';

/** A session id that could name a file outside the store's root, or no file at all. */
export class InvalidSessionIdError extends IndusagiError {
  static override readonly errorName: string = 'InvalidSessionIdError';
  constructor(
    readonly sessionId: string,
    readonly reason: string,
  ) {
    super('invalid_session_id', `Invalid session id ${JSON.stringify(sessionId)}: ${reason}.`);
  }
}

/** Another live writer holds the session's lock file. `pid` is null when the holder cannot be named. */
export class SessionLockedError extends IndusagiError {
  static override readonly errorName: string = 'SessionLockedError';
  constructor(
    readonly sessionId: string,
    readonly pid: number | null,
    readonly lockPath: string,
    detail: string,
  ) {
    super('session_locked', `Session ${JSON.stringify(sessionId)} is locked for writing: ${detail} (lock file ${lockPath}).`);
  }
}

/**
 * An append under a lease that no longer holds the session: it was released, or another writer took
 * the session over. Nothing was written; acquire the session again to go on from what is stored.
 * `SessionLockLostError` (files) and `SessionFencedError` (PostgreSQL) are this error too.
 */
export class SessionLeaseLostError extends IndusagiError {
  static override readonly errorName: string = 'SessionLeaseLostError';
  constructor(
    readonly sessionId: string,
    detail: string,
    options?: { cause?: unknown; kind?: string },
  ) {
    super(options?.kind ?? 'session_lease_lost', `Session ${JSON.stringify(sessionId)}: ${detail}; nothing was written.`, options);
  }
}

/** A record handed to `append` that is not a `SessionRecord` a load could read back. Nothing was written. */
export class InvalidRecordError extends IndusagiError {
  static override readonly errorName: string = 'InvalidRecordError';
  constructor(
    readonly sessionId: string,
    readonly index: number,
    readonly reason: string,
  ) {
    super('invalid_record', `Session ${JSON.stringify(sessionId)}: record ${index} cannot be appended: ${reason}; nothing was written.`);
  }
}

/** The writer's lock file vanished or was replaced while the session was held; writing on could fork history. */
export class SessionLockLostError extends SessionLeaseLostError {
  static override readonly errorName: string = 'SessionLockLostError';
  constructor(
    sessionId: string,
    readonly lockPath: string,
  ) {
    super(sessionId, `the writer lock (${lockPath}) was removed or replaced by someone else`, { kind: 'session_lock_lost' });
  }
}

/** A node id the graph does not hold. */
export class UnknownNodeError extends IndusagiError {
  static override readonly errorName: string = 'UnknownNodeError';
  constructor(
    readonly sessionId: string,
    readonly nodeId: string,
  ) {
    super('unknown_node', `Session ${JSON.stringify(sessionId)} has no node ${JSON.stringify(nodeId)}.`);
  }
}

/** A turn (or timestamp) that cannot be stored: wrong shape, or not representable as JSON. */
export class InvalidTurnError extends IndusagiError {
  static override readonly errorName: string = 'InvalidTurnError';
  constructor(detail: string, options?: { cause?: unknown }) {
    super('invalid_turn', `Cannot append turn: ${detail}.`, options);
  }
}

/** A compaction summary node whose `firstKept` is not one of its ancestors, so its context cannot be rebuilt. */
export class BrokenCompactionError extends IndusagiError {
  static override readonly errorName: string = 'BrokenCompactionError';
  constructor(
    readonly sessionId: string,
    readonly summaryId: string,
    readonly firstKept: string,
  ) {
    super(
      'broken_compaction',
      `Session ${JSON.stringify(sessionId)}: compaction summary node ${summaryId} keeps a tail from ${firstKept}, which is not one of its ancestors.`,
    );
  }
}

/** `SessionGraph.fromRecords` was given records that do not form a whole graph (orphans, or a head naming no node). */
export class SessionIntegrityError extends IndusagiError {
  static override readonly errorName: string = 'SessionIntegrityError';
  constructor(
    readonly sessionId: string,
    readonly problems: string[],
  ) {
    super('session_integrity', `Session ${JSON.stringify(sessionId)} records do not form a whole graph: ${problems.join('; ')}.`);
  }
}

/** The file system refused a read or write; `cause` holds the system error. Nothing unsaved was dropped. */
export class SessionIoError extends IndusagiError {
  static override readonly errorName: string = 'SessionIoError';
  constructor(
    readonly sessionId: string,
    readonly operation: string,
    cause: unknown,
  ) {
    super(
      'session_io',
      `Session ${JSON.stringify(sessionId)}: ${operation} failed: ${cause instanceof Error ? cause.message : String(cause)}.`,
      { cause },
    );
  }
}

/**
 * A session file or lock file that is not a plain file of the store's own: a symbolic link (followed,
 * it could make the store read or write outside its root), a directory, a FIFO or a device. Nothing
 * was read from it or written to it; remove or rename it by hand.
 */
export class SessionPathUnsafeError extends IndusagiError {
  static override readonly errorName = 'SessionPathUnsafeError';
  constructor(
    readonly sessionId: string,
    readonly path: string,
    readonly reason: string,
  ) {
    super(
      'session_path_unsafe',
      `Session ${JSON.stringify(sessionId)}: ${reason}; the store never follows links or opens anything but regular files in its root.`,
    );
  }
}

/**
 * The context at `nodeId` needs `missingId`, which the graph does not hold: its record was damaged or
 * lost (the load report names the line). Only nodes kept past such a gap can raise it, never the leaf
 * a load chose: the loader falls back to a leaf whose context is whole.
 */
export class MissingHistoryError extends IndusagiError {
  static override readonly errorName = 'MissingHistoryError';
  constructor(
    readonly sessionId: string,
    readonly nodeId: string,
    readonly missingId: string,
  ) {
    super(
      'missing_history',
      `Session ${JSON.stringify(sessionId)}: the context at node ${nodeId} needs node ${missingId}, which is damaged or missing (see the load report).`,
    );
  }
}

/**
 * A method that needs the whole session graph was called on a graph that holds only its live path,
 * and the graph's source can load the rest only asynchronously: `await graph.loadWhole()` first.
 */
export class GraphNotLoadedError extends IndusagiError {
  static override readonly errorName = 'GraphNotLoadedError';
  constructor(readonly sessionId: string) {
    super(
      'graph_not_loaded',
      `Session ${JSON.stringify(sessionId)}: this graph holds only its live path and its store cannot load the rest synchronously; await graph.loadWhole() first.`,
    );
  }
}
