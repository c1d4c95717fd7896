import { randomUUID } from 'node:crypto';
import type { PendingApproval } from '../runtime/contract/events.js';
import type { ToolContext, ToolDefinition } from '../runtime/contract/tool.js';
import { IndusagiError } from '../errors/index.js';
import { approvalResult } from './approvals.js';
import { ToolError, checkToolInput, compileToolInput, DuplicateToolError, UnknownApprovalError } from '../runtime/tools/index.js';
import type { CompiledSchema } from '../schema/index.js';

/**
 * A tool in the Anthropic API's shape, under its original (possibly dotted) name: the formatted toolset
 * `runAgent({ tools })` takes, as the reference's `toToolSource(…, { format: 'anthropic' })` gives it.
 * Everything else in indusagi speaks `ModelTool` (`inputSchema`).
 */
export type AnthropicToolSpec = { name: string; description: string; input_schema: object };

/**
 * The bridge from `ToolDefinition`s to `runAgent`: specs for the model and one `execute` by name. Its
 * approvals are a view of the agent's: a held call is a `PendingApproval`, as in `agent.pendingApprovals()`.
 */
export interface Toolset {
  tools: AnthropicToolSpec[];
  /**
   * Runs the tool called `name` (the original name). Tools with `needsApproval` are held instead and
   * return a `PendingApprovalResult`. Called by hand, `ctx` may leave out the signal (a fresh one) and
   * the call id (a random one); the loop always gives both.
   */
  execute(name: string, input: unknown, ctx?: Partial<ToolContext>): Promise<unknown>;
  /** Original names, in definition order (handy for `pin`). */
  names: string[];
  /** The calls held for approval, oldest first (copies): `approvalId` is the call id, `input` as the call gave it. */
  pendingApprovals(): PendingApproval[];
  /** Runs a held call, once: its input is checked again, then the tool runs under the call's own id. */
  approve(actionId: string, ctx?: Partial<ToolContext>): Promise<unknown>;
  /** Drops a held call without running it. Returns false if no such call was held. */
  reject(actionId: string): boolean;
}

export class UnknownToolError extends IndusagiError {
  static override readonly errorName: string = 'UnknownToolError';
  constructor(readonly toolName: string) {
    super('unknown_tool', `No tool named "${toolName}".`);
  }
}

/** A call id the toolset already holds for approval: approving it must run exactly one call. */
export class DuplicateCallIdError extends ToolError {
  static override readonly errorName: string = 'DuplicateCallIdError';
  constructor(readonly callId: string) {
    super(`A call with id "${callId}" is already waiting for approval; one approval must run exactly one call.`);
  }
}

/**
 * Builds a `Toolset` from definitions: specs carry each tool's JSON Schema (derived from a Standard
 * Schema where that is what the tool has), and `execute` checks the input against the tool's schema
 * first, throwing `ToolInputError` (a `ToolError`, so the model sees every problem) instead of running
 * or holding an invalid call. Throws `DuplicateToolError` on a repeated name and `SchemaDefinitionError`
 * for a schema that cannot be used.
 */
export function toToolset(definitions: readonly ToolDefinition[]): Toolset {
  const byName = new Map<string, ToolDefinition>();
  const inputs = new Map<string, CompiledSchema>();
  for (const definition of definitions) {
    if (byName.has(definition.name)) throw new DuplicateToolError(definition.name);
    byName.set(definition.name, definition);
    inputs.set(definition.name, compileToolInput(definition));
  }
  const pending = new Map<string, PendingApproval>();

  const checked = async (name: string, raw: unknown) => {
    const check = await checkToolInput(name, inputs.get(name)!, raw);
    if (!check.ok) throw check.error;
    return check.input;
  };
  // `ctx` is passed on whole, so what a tool may be given beside the signal and call id reaches it too.
  const run = (definition: ToolDefinition, input: unknown, callId: string, ctx: Partial<ToolContext> | undefined) =>
    definition.execute(input, { ...ctx, signal: ctx?.signal ?? new AbortController().signal, callId });

  return {
    tools: definitions.map((d) => ({ name: d.name, description: d.description, input_schema: inputs.get(d.name)!.jsonSchema })),
    names: definitions.map((d) => d.name),
    async execute(name, raw, ctx) {
      const definition = byName.get(name);
      if (!definition) throw new UnknownToolError(name);
      const input = await checked(name, raw);
      const callId = ctx?.callId ?? randomUUID();
      if (!definition.needsApproval) return run(definition, input, callId, ctx);
      if (pending.has(callId)) throw new DuplicateCallIdError(callId);
      const approval: PendingApproval = { approvalId: callId, callId, name, input: raw };
      pending.set(callId, approval);
      return approvalResult(approval);
    },
    pendingApprovals: () => [...pending.values()].map((approval) => ({ ...approval })),
    async approve(actionId, ctx) {
      const approval = pending.get(actionId);
      if (!approval) throw new UnknownApprovalError(actionId);
      // Released before it runs: one approval runs the call once, even when the tool throws.
      pending.delete(actionId);
      // Checked again when it runs, as the agent checks an approved call.
      const input = await checked(approval.name, approval.input);
      return run(byName.get(approval.name)!, input, approval.callId, ctx);
    },
    reject(actionId) {
      return pending.delete(actionId);
    },
  };
}
