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

/** `persist` for a session this store did not open for writing (or with a graph other than the one it opened). */
export class SessionNotOpenError extends IndusagiError {
  static override readonly errorName: string = 'SessionNotOpenError';
  constructor(
    readonly sessionId: string,
    detail: string,
  ) {
    super('session_not_open', `Session ${JSON.stringify(sessionId)} is not open for writing: ${detail}.`);
  }
}

/** The writer's lock file vanished or was replaced while the session was open; writing on could fork history. */
export class SessionLockLostError extends IndusagiError {
  static override readonly errorName: string = 'SessionLockLostError';
  constructor(
    readonly sessionId: string,
    readonly lockPath: string,
  ) {
    super(
      'session_lock_lost',
      `The writer lock of session ${JSON.stringify(sessionId)} (${lockPath}) was removed or replaced by someone else; nothing was written.`,
    );
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

/** A condensation node whose `firstKept` is not one of its ancestors, so its context cannot be rebuilt. */
export class BrokenCondensationError extends IndusagiError {
  static override readonly errorName: string = 'BrokenCondensationError';
  constructor(
    readonly sessionId: string,
    readonly summaryId: string,
    readonly firstKept: string,
  ) {
    super(
      'broken_condensation',
      `Session ${JSON.stringify(sessionId)}: condensation node ${summaryId} keeps a tail from ${firstKept}, which is not one of its ancestors.`,
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
