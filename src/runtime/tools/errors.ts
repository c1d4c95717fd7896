import { IndusagiError } from '../../errors/index.js';

// The errors of a set of tools that the loop and the conductor raise themselves, so they live with the
// runtime's tool primitives rather than with the toolsets built on top.

export class UnknownApprovalError extends IndusagiError {
  static override readonly errorName: string = 'UnknownApprovalError';
  constructor(readonly actionId: string) {
    super('unknown_approval', `No pending tool call with approval id "${actionId}".`);
  }
}

export class DuplicateToolError extends IndusagiError {
  static override readonly errorName: string = 'DuplicateToolError';
  constructor(readonly toolName: string) {
    super('duplicate_tool', `Two tools are named "${toolName}".`);
  }
}
