import { randomUUID } from 'node:crypto';
import type { ToolContext, ToolDefinition } from '../runtime/contract/tool.js';
import { IndusagiError } from '../errors/index.js';
import { ToolError } from './tool-error.js';
import { checkToolInput, compileToolInput } from './tool-input.js';
import type { CompiledSchema } from '../schema/index.js';

/** A tool in the Anthropic API's shape, under its original (possibly dotted) name. */
export type AnthropicToolSpec = { name: string; description: string; input_schema: object };

/** What a tool that needs approval returns instead of running. */
export type PendingApprovalResult = { status: 'pending_approval'; actionId: string };

/** The bridge from `ToolDefinition`s to `runAgent`: specs for the model and one `execute` by name. */
export interface Toolset {
  tools: AnthropicToolSpec[];
  /**
   * Runs the tool called `name` (the original name). Tools with `needsApproval` return a
   * `PendingApprovalResult`. Called by hand, `ctx` may leave out the signal (a fresh one) and the call id
   * (a random one); the loop always gives both.
   */
  execute(name: string, input: unknown, ctx?: Partial<ToolContext>): Promise<unknown>;
  /** Original names, in definition order (handy for `pin`). */
  names: string[];
  /** Runs a call that returned `pending_approval`, once. */
  approve(actionId: string, ctx?: Partial<ToolContext>): Promise<unknown>;
  /** Drops a pending call without running it. Returns false if no such call was pending. */
  reject(actionId: string): boolean;
}

export class UnknownToolError extends IndusagiError {
  static override readonly errorName: string = 'UnknownToolError';
  constructor(readonly toolName: string) {
    super('unknown_tool', `No tool named "${toolName}".`);
  }
}

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

/** A call id the toolset already holds for approval: approving it must run exactly one call. */
export class DuplicateCallIdError extends ToolError {
  static override readonly errorName: string = 'DuplicateCallIdError';
  constructor(readonly callId: string) {
    super(`A call with id "${callId}" is already waiting for approval; one approval must run exactly one call.`);
  }
}

// The pending-approval results toolsets minted for calls they hold. Anything else of that shape (JSON a
// tool fetched, say) is only data: it must never turn into a request to approve somebody else's call.
const held = new WeakSet<object>();

/**
 * True when `value` is a `PendingApprovalResult` that a toolset returned for a call it holds (and
 * `approve(actionId)` will run). Use this, not the shape, to decide whether to offer approve/reject.
 */
export function isHeldApproval(value: unknown): value is PendingApprovalResult {
  return typeof value === 'object' && value !== null && held.has(value);
}

/** True when `value` has the shape of a `PendingApprovalResult`; see `isHeldApproval` for whether a toolset holds it. */
export function isPendingApproval(value: unknown): value is PendingApprovalResult {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as PendingApprovalResult).status === 'pending_approval' &&
    typeof (value as PendingApprovalResult).actionId === 'string'
  );
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
  const pending = new Map<string, { definition: ToolDefinition; input: unknown }>();

  // `ctx` is passed on whole, so what a tool may be given beside the signal and call id reaches it too.
  const run = async (definition: ToolDefinition, input: unknown, ctx: Partial<ToolContext> | undefined, fallbackId: string) =>
    definition.execute(input, { ...ctx, signal: ctx?.signal ?? new AbortController().signal, callId: ctx?.callId ?? fallbackId });

  return {
    tools: definitions.map((d) => ({ name: d.name, description: d.description, input_schema: inputs.get(d.name)!.jsonSchema })),
    names: definitions.map((d) => d.name),
    async execute(name, raw, ctx) {
      const definition = byName.get(name);
      if (!definition) throw new UnknownToolError(name);
      const checked = await checkToolInput(name, inputs.get(name)!, raw);
      if (!checked.ok) throw checked.error;
      const input = checked.input;
      const callId = ctx?.callId ?? randomUUID();
      if (definition.needsApproval) {
        if (pending.has(callId)) throw new DuplicateCallIdError(callId);
        pending.set(callId, { definition, input });
        const result: PendingApprovalResult = { status: 'pending_approval', actionId: callId };
        held.add(result);
        return result;
      }
      return run(definition, input, ctx, callId);
    },
    async approve(actionId, ctx) {
      const call = pending.get(actionId);
      if (!call) throw new UnknownApprovalError(actionId);
      pending.delete(actionId);
      return run(call.definition, call.input, ctx, actionId);
    },
    reject(actionId) {
      return pending.delete(actionId);
    },
  };
}
