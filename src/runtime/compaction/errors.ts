import { IndusagiError } from '../../errors/index.js';

/** A policy, budget or history the compactor cannot work with; nothing was changed. */
export class CompactionInputError extends IndusagiError {
  static override readonly errorName: string = 'CompactionInputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_request', message, options);
  }
}

/**
 * The summarizing model call failed: the invoker rejected (network, API error), the model refused,
 * stopped early or answered with nothing. The history it was asked to compact is untouched.
 */
export class SummarizerError extends IndusagiError {
  static override readonly errorName: string = 'SummarizerError';
  /** The reply's stop reason when the model answered but the answer was unusable. */
  readonly stopReason: string | undefined;

  constructor(message: string, options: { cause?: unknown; stopReason?: string } = {}) {
    super('summarizer_failed', message, { cause: options.cause });
    this.stopReason = options.stopReason;
  }
}

/**
 * Even the smallest legal context (a summary plus the last turn, or the last complete tool
 * call/result pair) would not fit the budget, so no model call can succeed.
 */
export class ContextOverflowError extends IndusagiError {
  static override readonly errorName: string = 'ContextOverflowError';
  /** Estimated tokens the smallest legal context needs, including system prompt and output reserve. */
  readonly neededTokens: number;
  /** The budget: context window × trigger ratio. */
  readonly limitTokens: number;

  constructor(message: string, sizes: { neededTokens: number; limitTokens: number }) {
    super('context_overflow', message);
    this.neededTokens = sizes.neededTokens;
    this.limitTokens = sizes.limitTokens;
  }
}
