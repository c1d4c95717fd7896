import type { Turn } from './turn.js';
import type { ModelUsage } from './model.js';
import type { LoadReport } from './session.js';
import type { GuardrailTrip } from './guardrail.js';

/**
 * A tool call that waits for a human decision; `approvalId` is the call's id. A call of a sub-agent
 * (`agentTool`) waits on the agent that called it too: `path` names the agent tools it sits under,
 * outermost first, and `approvalId` joins their call ids and the call's own with `/` (`callId` is the
 * call's own id in the sub-agent's session).
 */
export type PendingApproval = { approvalId: string; callId: string; name: string; input: unknown; path?: string[] };

/**
 * Where a run stands. `waiting` means it settled with tool calls awaiting approval; `interrupted` (on
 * the snapshot of a session just opened) that a run stopped before its end, by a crash or a failed
 * model call, and `continue()` picks it up.
 */
export type RunStatus = 'running' | 'settled' | 'waiting' | 'faulted' | 'interrupted';

/** A tool call a crash cut off: it has no result. `continue()` re-runs it when `rerun`, else answers it as interrupted. */
export type InterruptedCall = { callId: string; name: string; input: unknown; rerun: boolean };

export type RunSnapshot = {
  sessionId: string;
  /** The conversation as the model will next see it (compacted where compaction ran). */
  messages: Turn[];
  /** The final assistant text of the run (text blocks of the last assistant turn, joined). */
  text: string;
  status: RunStatus;
  pendingApprovals: PendingApproval[];
  /** Tokens of this run's model calls, summed. */
  usage: ModelUsage;
  /**
   * On the snapshot `resume` (and `branchFrom`) returns: what loading the session from its store found,
   * skipped lines, orphans and a torn tail included. Absent when the store reports nothing.
   */
  loadReport?: LoadReport;
  /**
   * With `submit(prompt, { output: schema })`: the final answer parsed as JSON and validated against the
   * schema (a Standard Schema's output, its transforms applied). Absent without `output`.
   */
  output?: unknown;
  /** With status `interrupted`: the calls of the last reply a crash cut off (empty when the model had not answered yet). */
  interrupted?: InterruptedCall[];
  /** With handoffs (`AgentConfig.handoffs`): the name of the agent that has the conversation now. */
  agent?: string;
  /**
   * The guardrail trip the run ended on: on the faulted snapshot of a tripped run, and on the snapshot
   * `resume` returns while the session's last run is the one that tripped (the run was taken back).
   */
  tripped?: GuardrailTrip;
};

/** Why a run failed; `faulted.error.kind` and `RunFault.kind`. */
export type FaultKind =
  | 'aborted'
  | 'max_steps'
  | 'model_error'
  | 'context_overflow'
  | 'summarizer_failed'
  | 'store_error'
  | 'invalid_request'
  /** The final answer did not match the `output` schema of `submit`, even after one repair attempt. */
  | 'invalid_output'
  /** The next model or tool call would have crossed one of the run's `limits` (counted over its sub-agents too), so it was not made. */
  | 'budget_exceeded'
  /** A guardrail tripped (or threw): the run stopped and was taken back; the snapshot's `tripped` says why. */
  | 'guardrail_tripped'
  /** A tool call would have started an agent nested deeper than its tree allows (`agentTool`'s `maxDepth`): not made, and every run up the tree stopped. */
  | 'depth_exceeded'
  | 'internal';

export type RunError = { kind: FaultKind; message: string };

/**
 * Every step of a run, published on the RunLedger in order. Switch on `kind`. Each carries the `runId`
 * of the run it belongs to (`Run.runId`; `resume`, `branchFrom` and `condense` are runs of their own),
 * so runs streamed side by side can be told apart.
 */
export type RunEvent = RunEventBody & { runId: string };

/** A `RunEvent` before the conductor stamps it with its run's id. */
export type RunEventBody =
  | { kind: 'run_started'; sessionId: string; prompt: string | null }
  /** The agent opened a session from its store; `report` says what the load found (check it: a damaged file loads what it can). */
  | { kind: 'session_opened'; sessionId: string; report: LoadReport }
  | { kind: 'text_delta'; delta: string }
  | { kind: 'tool_started'; name: string; callId: string; input: unknown }
  /** A running call reported how far it has got (`ToolContext.progress`, an MCP server's progress notifications); between its `tool_started` and `tool_finished`. */
  | { kind: 'tool_progress'; name: string; callId: string; progress: number; total?: number; message?: string }
  /** Every call ends with one, whether it ran or not (unknown tool, invalid input, rejected, aborted); `input` as the model gave it. */
  | { kind: 'tool_finished'; name: string; callId: string; input: unknown; result: unknown; isError: boolean }
  | { kind: 'approval_requested'; approvalId: string; name: string; callId: string; input: unknown }
  /** A running tool asks the person for input (`ToolContext.ask`); answer with `agent.answer(requestId, answer)`. */
  | { kind: 'input_requested'; requestId: string; callId: string; name: string; message: string; schema: object; from?: string }
  /** The answer to an `input_requested` arrived (or the run ended first: `cancel`). */
  | { kind: 'input_answered'; requestId: string; action: 'accept' | 'decline' | 'cancel' }
  | { kind: 'snapshot'; snapshot: RunSnapshot }
  | {
      kind: 'compacted';
      /** How many turns the summary replaced. */
      removed: number;
      summary: string;
      tokensBefore: number;
      tokensAfter: number;
      /** The session's node ids of the turns the summary replaced, oldest first (with a store; they stay searchable). */
      dropped?: string[];
    }
  | {
      kind: 'context';
      source: string;
      /** `skipped`: a selection left out for the budget; `tokens` is what it would have cost. */
      op: 'recalled' | 'loaded' | 'saved' | 'skipped';
      records?: unknown[];
      tools?: string[];
      tokens?: number;
    }
  /**
   * A model call's tokens (`usage`) and the run's so far (`total`). `model` is the model billed for it,
   * the one its session node names (a fallback's answers name the fallback): what prices it.
   */
  | { kind: 'usage'; usage: ModelUsage; total: ModelUsage; model?: string }
  /**
   * With `submit(prompt, { output })`: the answer's JSON so far, parsed as it streams (`parsePartialJson`):
   * only what has arrived and cannot change. Not validated; the settled snapshot's `output` is.
   */
  | { kind: 'partial_output'; value: unknown }
  /**
   * The model call failed in a way worth retrying (overloaded, rate limited, a dropped connection); it is
   * retried after `delayMs`, by `model` when a fallback hands it to another model (`fallbackModels`).
   */
  | { kind: 'model_retry'; attempt: number; delayMs: number; status?: number; reason: string; model?: string }
  /** A guardrail tripped: the run stops now (a model call in flight is aborted, no tool runs) and faults `guardrail_tripped`. */
  | { kind: 'guardrail_tripped'; trip: GuardrailTrip; outputInfo?: unknown }
  | { kind: 'settled'; snapshot: RunSnapshot }
  | { kind: 'faulted'; error: RunError; snapshot: RunSnapshot }
  /**
   * An event of a sub-agent's run (`agentTool`), carried in the run of the agent that called it, so one
   * stream covers the whole tree. `path` names the agent tools from this run down, outermost first;
   * `calls` their call ids; `sessionId` is the session of the sub-agent that published `event`, which
   * is its own event as published there (its own `runId`; never itself `nested`: deeper events arrive
   * with a longer path).
   */
  | { kind: 'nested'; path: string[]; calls: string[]; sessionId: string; event: RunEvent }
  /** The model handed the conversation from agent `from` to agent `to` (`handoffs`): the next model call is `to`'s. */
  | { kind: 'handoff'; from: string; to: string; callId: string };

export type RunEventKind = RunEvent['kind'];
