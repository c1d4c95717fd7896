import type { MemoryRecord } from '../memory/types.js';
import type { GuardrailTrip } from '../runtime/contract/guardrail.js';

/** A chunk of assistant text, streamed as it arrives. */
export interface AgentTextPart {
  type: 'text';
  text: string;
}

/** A tool the model called, with its result: render a component keyed by `name`. */
export interface AgentToolPart {
  type: 'tool';
  /** The original (unsanitized) tool name. */
  name: string;
  callId: string;
  input: unknown;
  result: unknown;
  isError?: boolean;
  /** Set when the tool waits for approval; pass it to the approve/reject call. */
  approvalId?: string;
}

/** A memory read or write from `runAgent`'s `memory` option (without `context`). */
export interface AgentMemoryPart {
  type: 'memory';
  op: 'recalled' | 'saved';
  records: MemoryRecord[];
}

/**
 * An event from a ContextManager source (`'memory'`, `'tools'`, or your own). `'skipped'` reports a
 * selection left out because it would have pushed the total past `maxTokens - reserve`; `tokens` is
 * what it would have cost.
 */
export interface AgentContextPart {
  type: 'context';
  source: string;
  op: 'recalled' | 'loaded' | 'saved' | 'skipped';
  records?: MemoryRecord[];
  tools?: string[];
  tokens?: number;
}

/**
 * With `output` (structured output): the answer's JSON so far, parsed as it streams; each part holds the
 * whole value so far (replace, don't append). Not validated: the run's snapshot `output` is.
 */
export interface AgentOutputPart {
  type: 'output';
  value: unknown;
}

/**
 * A guardrail tripped the run (`guardrail_tripped`): it stops here, and the run's fault follows. Show it
 * where the answer would have been; text streamed before it was never accepted.
 */
export interface AgentGuardrailPart {
  type: 'guardrail';
  trip: GuardrailTrip;
}

/**
 * A part of a sub-agent's run (`agentTool`), where it sits in the tree of agents: `path` names the
 * agent tools from the top down, `calls` their call ids (`calls[0]` is the call of this reply that
 * the part belongs under). `part` is what the sub-agent's own event makes; a tool part in it waiting
 * for approval carries the id to decide it with at the top (`approve(approvalId)`).
 */
export interface AgentNestedPart {
  type: 'nested';
  path: string[];
  calls: string[];
  part: AgentOwnPart;
}

/** A part an agent's own events make (what a `nested` part wraps). */
export type AgentOwnPart = AgentTextPart | AgentToolPart | AgentMemoryPart | AgentContextPart | AgentOutputPart | AgentGuardrailPart;

/** One streamed part of an assistant turn. Switch on `type`. */
export type AgentPart = AgentOwnPart | AgentNestedPart;
