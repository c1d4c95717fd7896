import { IndusagiError } from '../errors/index.js';

/** Options `evaluate` (or `compare`, or a scorer factory) cannot run with: said before any case runs. */
export class EvalOptionsError extends IndusagiError {
  static override readonly errorName: string = 'EvalOptionsError';
  constructor(message: string) {
    super('eval_options', message);
  }
}

/** A dataset that cannot be read: a JSONL line that is not JSON or not a case, named by file and line. */
export class EvalDataError extends IndusagiError {
  static override readonly errorName: string = 'EvalDataError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('eval_data', message, options);
  }
}

/**
 * Replaying, a model request no recording holds: the agent asked something it did not ask when the
 * replies were recorded (a new system prompt, a renamed tool). The case ends `replay_miss`; nothing is
 * sent to a model.
 */
export class ReplayMissError extends IndusagiError {
  static override readonly errorName: string = 'ReplayMissError';
  constructor(
    readonly key: string,
    readonly file: string,
  ) {
    super(
      'replay_miss',
      `no recorded reply for this model request (key ${key.slice(0, 12)}…) in ${file}: the request changed since it was recorded; record again`,
    );
  }
}

/** A recordings file that cannot be read or written. */
export class RecordingFileError extends IndusagiError {
  static override readonly errorName: string = 'RecordingFileError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('recording_file', message, options);
  }
}

/** A model judge whose reply is not the `{ score, reason }` asked for. */
export class JudgeReplyError extends IndusagiError {
  static override readonly errorName: string = 'JudgeReplyError';
  constructor(message: string) {
    super('judge_reply', message);
  }
}

/** An evaluation journal that cannot be read, written, or is another evaluation's (or another dataset's). */
export class EvalJournalError extends IndusagiError {
  static override readonly errorName: string = 'EvalJournalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('eval_journal', message, options);
  }
}

/**
 * A LoCoMo file that cannot be read as one: not JSON, or a field missing or of the wrong type. The
 * message names the file and the field (`26.json: qa[3].category must be a number 1-5`).
 */
export class LocomoDataError extends IndusagiError {
  static override readonly errorName: string = 'LocomoDataError';
  constructor(
    readonly file: string,
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('locomo_data', `${file}: ${field === '' ? '' : `${field} `}${message}`, options);
  }
}
