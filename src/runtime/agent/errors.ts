import { ToolError } from '../tools/tool-error.js';
import { IndusagiError, errorMessage } from '../../errors/index.js';
import type { PendingApproval } from '../contract/events.js';

/** `submit` while tool calls wait for a decision: approve or reject them first (`agent.pendingApprovals()`). */
export class ApprovalsPendingError extends IndusagiError {
  static override readonly errorName: string = 'ApprovalsPendingError';
  constructor(
    readonly sessionId: string,
    readonly pending: PendingApproval[],
  ) {
    super(
      'approvals_pending',
      `Session ${JSON.stringify(sessionId)} has ${pending.length} tool call(s) waiting for approval ` +
        `(${pending.map((p) => `${p.name} ${p.approvalId}`).join(', ')}); approve or reject them before submitting.`,
    );
  }
}

/** A call on an agent after `close()`. */
export class AgentClosedError extends IndusagiError {
  static override readonly errorName: string = 'AgentClosedError';
  constructor() {
    super('agent_closed', 'The agent is closed; create a new one.');
  }
}

/** An `AgentConfig` value that cannot work, refused by `createAgent` before anything runs. */
export class AgentConfigError extends IndusagiError {
  static override readonly errorName: string = 'AgentConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_config', message, options);
  }
}

/**
 * A change to the context the session cannot record: a compaction whose summary is not a user turn or
 * whose kept tail starts outside the context, or a context manager's own history compaction (any
 * replacement) in a session that records compactions only.
 */
export class ContextReplacementError extends IndusagiError {
  static override readonly errorName: string = 'ContextReplacementError';
  constructor(detail: string) {
    super('invalid_request', `This context change cannot be recorded in the session: ${detail}.`);
  }
}

/** `submit` needs a prompt with visible text; the API refuses empty ones. */
export class InvalidPromptError extends IndusagiError {
  static override readonly errorName: string = 'InvalidPromptError';
  constructor(detail: string) {
    super('invalid_request', `Invalid prompt: ${detail}.`);
  }
}

/** `branchFrom` to a node the session cannot continue from (or an agent without a store, whose turns have no node ids). */
export class BranchPointError extends IndusagiError {
  static override readonly errorName: string = 'BranchPointError';
  constructor(
    readonly sessionId: string,
    detail: string,
  ) {
    super('invalid_request', `Cannot branch session ${JSON.stringify(sessionId)}: ${detail}.`);
  }
}

/**
 * A step could not be made durable mid-run (the store refused the write): the run stops there, before
 * anything runs that the session could not record. `cause` is the store's error.
 */
export class CheckpointError extends IndusagiError {
  static override readonly errorName: string = 'CheckpointError';
  constructor(
    readonly sessionId: string,
    options: { cause: unknown },
  ) {
    super(
      'store_error',
      `Session ${JSON.stringify(sessionId)} could not be made durable mid-run, so the run stopped: ${errorMessage(options.cause)}`,
      options,
    );
  }
}

/**
 * Model controls (`temperature`, `topP`, `stopSequences`, `toolChoice`, `thinking`) that cannot work:
 * out of range, naming an unknown tool, or a combination the model refuses. Thrown by `createAgent`
 * (as `AgentConfigError`'s cause) and by `submit`, before anything runs.
 */
export class ModelControlsError extends IndusagiError {
  static override readonly errorName: string = 'ModelControlsError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_request', message, options);
  }
}

/** A `prepareStep` hook returned overrides the run cannot apply (a second compaction in one step). */
export class StepHookError extends IndusagiError {
  static override readonly errorName: string = 'StepHookError';
  constructor(detail: string) {
    super('invalid_request', `The per-step hook's answer cannot be applied: ${detail}.`);
  }
}

/**
 * A tool asked the person for input (`ToolContext.ask`, an MCP server's elicitation) and nobody can
 * answer: nothing listens to the run (no `subscribe` handler, nobody reading the `Run`), as in a headless
 * run. A `ToolError`, so a tool that lets it through tells the model why it could not go on.
 */
export class InputUnavailableError extends ToolError {
  static override readonly errorName: string = 'InputUnavailableError';
  constructor(readonly tool: string) {
    super(`The tool "${tool}" asked for the user's input, but this run is headless: nothing listens to its events, so nobody can answer.`);
  }
}

/** `agent.answer(requestId, ...)` named no input request the running run is waiting on. */
export class UnknownInputRequestError extends IndusagiError {
  static override readonly errorName: string = 'UnknownInputRequestError';
  constructor(readonly requestId: string) {
    super('unknown_input_request', `No tool is waiting for an answer to input request "${requestId}".`);
  }
}

/** An answer to an input request that cannot be taken: not an answer, or content that does not match the question's schema. */
export class InvalidInputAnswerError extends IndusagiError {
  static override readonly errorName: string = 'InvalidInputAnswerError';
  constructor(detail: string) {
    super('invalid_request', `That answer cannot be given to the tool: ${detail}.`);
  }
}
