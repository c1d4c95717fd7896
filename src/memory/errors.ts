import { IndusagiError } from '../errors/index.js';

/** Bad input to a memory store or helper (text, options, seed records, meta). Nothing was changed. */
export class MemoryInputError extends IndusagiError {
  static override readonly errorName: string = 'MemoryInputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('memory_input', message, options);
  }
}

/**
 * A save or update that contradicts what is stored: `supersedes` names a record that does not exist
 * in the saver's scope or was already superseded. Nothing was changed.
 */
export class MemoryConflictError extends IndusagiError {
  static override readonly errorName: string = 'MemoryConflictError';
  constructor(message: string) {
    super('memory_conflict', message);
  }
}

/** A durable store was used after `close()`. */
export class MemoryStoreClosedError extends IndusagiError {
  static override readonly errorName: string = 'MemoryStoreClosedError';
  constructor() {
    super('memory_store_closed', 'This memory store is closed.');
  }
}

/**
 * A `setWorking` whose `expectedVersion` is not the block's version now: another writer changed (or
 * forgot) the block since this one read it. Nothing was changed; read the block again and retry.
 */
export class WorkingMemoryConflictError extends IndusagiError {
  static override readonly errorName: string = 'WorkingMemoryConflictError';
  constructor(
    /** The version the writer expected. */
    readonly expectedVersion: number,
    /** The block's version now; 0 when the scope has no block. */
    readonly currentVersion: number,
  ) {
    super(
      'working_memory_conflict',
      `The working memory block changed: the write expected version ${expectedVersion}, the block is at ${currentVersion === 0 ? 'no version (it has no block)' : `version ${currentVersion}`}. Nothing was written; read it again and retry.`,
    );
  }
}
