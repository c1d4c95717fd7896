import type { AgentPart } from './types.js';
import { InvalidPartError } from './errors.js';

const MEMORY_OPS = new Set(['recalled', 'saved']);
const CONTEXT_OPS = new Set(['recalled', 'loaded', 'saved', 'skipped']);
const GUARDRAIL_STAGES = new Set(['input', 'answer', 'tool_call']);

// Parts cross process and network boundaries (the transport, a user's own fetch), so the store checks
// the fields a renderer switches on instead of trusting the static type.
export function partProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return `a part must be an object, got ${value === null ? 'null' : typeof value}`;
  const part = value as Record<string, unknown>;
  switch (part.type) {
    case 'text':
      return typeof part.text === 'string' ? null : 'a text part needs a string "text"';
    case 'tool':
      if (typeof part.name !== 'string') return 'a tool part needs a string "name"';
      if (typeof part.callId !== 'string') return 'a tool part needs a string "callId"';
      if (part.isError !== undefined && typeof part.isError !== 'boolean') return 'a tool part\'s "isError" must be a boolean';
      if (part.approvalId !== undefined && typeof part.approvalId !== 'string') return 'a tool part\'s "approvalId" must be a string';
      return null;
    case 'memory':
      if (!MEMORY_OPS.has(part.op as string)) return `a memory part's "op" must be "recalled" or "saved", got ${JSON.stringify(part.op)}`;
      return Array.isArray(part.records) ? null : 'a memory part needs a "records" array';
    case 'context':
      if (typeof part.source !== 'string') return 'a context part needs a string "source"';
      if (!CONTEXT_OPS.has(part.op as string))
        return `a context part's "op" must be "recalled", "loaded", "saved" or "skipped", got ${JSON.stringify(part.op)}`;
      if (part.records !== undefined && !Array.isArray(part.records)) return 'a context part\'s "records" must be an array';
      if (part.tools !== undefined && !(Array.isArray(part.tools) && part.tools.every((t) => typeof t === 'string'))) {
        return 'a context part\'s "tools" must be an array of strings';
      }
      if (part.tokens !== undefined && (typeof part.tokens !== 'number' || !Number.isFinite(part.tokens)))
        return 'a context part\'s "tokens" must be a finite number';
      return null;
    case 'nested': {
      const strings = (value: unknown) => Array.isArray(value) && value.length > 0 && value.every((s) => typeof s === 'string');
      if (!strings(part.path)) return 'a nested part needs a "path" of agent tool names';
      if (!strings(part.calls) || (part.calls as string[]).length !== (part.path as string[]).length)
        return 'a nested part needs "calls", one call id per step of its "path"';
      if ((part.part as { type?: unknown } | null)?.type === 'nested')
        return 'a nested part holds a part of its own agent, not another nested part';
      const inner = partProblem(part.part);
      return inner === null ? null : `its inner part is wrong: ${inner}`;
    }
    case 'output':
      return 'value' in part ? null : 'an output part needs a "value"';
    case 'guardrail': {
      const trip = part.trip as Record<string, unknown> | null;
      if (typeof trip !== 'object' || trip === null) return 'a guardrail part needs a "trip" object';
      if (typeof trip.guardrail !== 'string' || typeof trip.message !== 'string')
        return 'a guardrail part\'s "trip" needs string "guardrail" and "message"';
      if (!GUARDRAIL_STAGES.has(trip.stage as string))
        return `a guardrail part's "trip.stage" must be "input", "answer" or "tool_call", got ${JSON.stringify(trip.stage)}`;
      return null;
    }
    default:
      return `unknown part type ${JSON.stringify(part.type)}`;
  }
}

/** Throws `InvalidPartError` unless `value` has the shape of an `AgentPart`. */
export function assertAgentPart(value: unknown): asserts value is AgentPart {
  const problem = partProblem(value);
  if (problem !== null) throw new InvalidPartError(`Not an AgentPart: ${problem}.`);
}
