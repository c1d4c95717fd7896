import type { Agent } from '../runtime/agent/types.js';
import type { RunLimits } from '../runtime/contract/limits.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import type { PromptBlock, Turn } from '../runtime/contract/turn.js';
import type { SessionStoreLike } from '../runtime/store/types.js';
import type { SchemaLike } from '../schema/index.js';

/**
 * What an evaluation runs: an agent definition, opened once per case in a fresh session. `defineAgent`'s
 * definition has this shape; so does `{ open: (o) => createAgent({ ...config, sessionId: o?.sessionId }, deps) }`.
 */
export interface EvaluableAgent {
  open(options?: { sessionId?: string }): Agent;
}

/** A case's input: a prompt (text or content blocks), or a conversation whose last turn is the user's prompt. */
export type CaseInput = string | PromptBlock[] | { messages: Turn[] };

/** One case of a dataset. `id` names its session (`<evaluation>-<id>`); default its position. */
export type EvalCase<Expected = unknown> = {
  id?: string;
  input: CaseInput;
  expected?: Expected;
  metadata?: Record<string, unknown>;
};

/**
 * One tool call of a case, in the order the calls started: its input as the model gave it, its result,
 * and, for an agent tool (`agentTool`), the sub-agent's own calls nested under it.
 */
export type TrajectoryStep = {
  name: string;
  callId: string;
  input: unknown;
  result?: unknown;
  isError?: boolean;
  /** The calls the sub-agent behind this call made (its session in `sessionId`). */
  children?: TrajectoryStep[];
  sessionId?: string;
};

/** What a scorer is given about one case. */
export type ScorerInput<Expected = unknown> = {
  input: CaseInput;
  /** The final answer's text. */
  output: string;
  /** The final answer parsed, when the agent ran with structured output (`submit`'s `output`). */
  structured?: unknown;
  expected: Expected | undefined;
  trajectory: TrajectoryStep[];
  metadata: Record<string, unknown>;
};

/**
 * What a scorer says: a score from 0 to 1 and why. A scorer that spends tokens itself (a model judge)
 * reports them here, so they are counted apart from the agent's.
 */
export type ScoreResult = { score: number; reason: string; usage?: ModelUsage; costUsd?: number };

/** A named scorer. A case passes it when its score is at least `threshold` (default 0.5). */
export type Scorer<Expected = any> = {
  readonly name: string;
  readonly threshold?: number;
  score(input: ScorerInput<Expected>): ScoreResult | Promise<ScoreResult>;
};

/** A scorer's verdict on one case; `error` when the scorer threw (scored 0, never passed). */
export type CaseScore = ScoreResult & { name: string; passed: boolean; error?: string };

/**
 * How a case ended: `settled` (ran and was scored), `faulted` (the run failed: `error`), `replay_miss`
 * (replaying, a request had no recording), `skipped` (the evaluation's `limits` were spent before it
 * started), `cancelled` (the signal fired first).
 */
export type CaseStatus = 'settled' | 'faulted' | 'replay_miss' | 'skipped' | 'cancelled';

export type CaseResult = {
  id: string;
  index: number;
  /**
   * The session the case ran in: open it like any other (`indusagi sessions show ID --store ...`).
   * `''` for a case no agent ran (`memoryRecallEval`'s: a search, not a conversation).
   */
  sessionId: string;
  status: CaseStatus;
  input: CaseInput;
  expected?: unknown;
  metadata: Record<string, unknown>;
  output: string;
  structured?: unknown;
  trajectory: TrajectoryStep[];
  /** Tokens of every model call of the case, sub-agents included (the judge's are in `judgeUsage`). */
  usage: ModelUsage;
  /**
   * USD at the model cards' list prices, each call priced by the model billed for it (its run's usage
   * events; a resumed case's from its stored sessions, the cut-off attempt included); undefined when
   * some call cannot be priced.
   */
  costUsd?: number;
  latencyMs: number;
  scores: CaseScore[];
  /** What the scorers spent (model judges), apart from the agent. */
  judgeUsage: ModelUsage;
  judgeCostUsd?: number;
  error?: { kind: string; message: string };
};

export type ScorerSummary = { name: string; mean: number; passRate: number; scored: number };

/** The scorers' summary over the cases of one group (`groupBy`), e.g. one LoCoMo category. */
export type GroupSummary = { group: string; cases: number; scorers: ScorerSummary[] };

/**
 * How cases are grouped in the summary and the reports: a metadata key (its value, as text, names the
 * group) or a function of the case. A case with no group (the key absent, the function undefined) is in `(none)`.
 */
export type GroupBy = string | ((c: CaseResult) => string | undefined);

export type EvalSummary = {
  cases: number;
  /** Cases by status. */
  statuses: Record<CaseStatus, number>;
  scorers: ScorerSummary[];
  usage: ModelUsage;
  /** The agent's cost, over the cases that could be priced; `unpriced` counts those that could not. */
  costUsd: number;
  unpriced: number;
  judgeUsage: ModelUsage;
  judgeCostUsd: number;
  latencyMs: { p50: number; p95: number; mean: number };
  /** Per group, in group order, when the evaluation was given `groupBy`. */
  groups?: GroupSummary[];
};

export type EvalResult = {
  name: string;
  /** Tells this run's sessions from another run's of the same evaluation (`<name>-<runId>-<case id>`). */
  runId: string;
  startedAt: string;
  /** `cancelled` when the signal fired, `limited` when the limits stopped it before every case ran. */
  status: 'done' | 'cancelled' | 'limited';
  cases: CaseResult[];
  summary: EvalSummary;
};

/**
 * A budget over the whole evaluation (every case's agent, not the judges): once tokens or cost are spent
 * no further case starts (those in flight finish); time is handed to each run as its `maxDurationMs`.
 */
export type EvalLimits = Pick<RunLimits, 'maxCostUsd' | 'maxTokens' | 'maxDurationMs'>;

/**
 * Progress after each case, for a progress bar. With a journal a case is reported once its line is on
 * disk, which may be while the next case runs.
 */
export type EvalProgress = { done: number; total: number; last: CaseResult };

/**
 * Traces each case: `createTelemetry()` of indusagi/telemetry is one. `evalCase` runs the case inside a
 * span (`evaluate_case`), under which the case's agent runs nest when the agent is traced too.
 */
export type EvalTelemetry = {
  evalCase<R extends CaseResult>(
    info: { evaluation: string; runId: string; caseId: string; sessionId: string },
    work: () => Promise<R>,
  ): Promise<R>;
};

export type EvaluateOptions<Expected = any> = {
  /** Names the evaluation, its sessions (`<name>-<case id>`) and its journal. Default `eval`. */
  name?: string;
  agent: EvaluableAgent;
  /** The cases, or the path of a JSONL file of them (one case per line). */
  data: ReadonlyArray<EvalCase<Expected>> | string;
  scorers: ReadonlyArray<Scorer<Expected>>;
  /** Cases run at once. Default 4. */
  concurrency?: number;
  limits?: EvalLimits;
  signal?: AbortSignal;
  /**
   * The session store the agent's sessions live in (the one the definition was given): written to for a
   * case given as a conversation, and read back for a case a kill cut off (`journal`).
   */
  store?: SessionStoreLike;
  /** A schema for the answer (`submit`'s `output`): each case runs with structured output and the scorers get `structured`. */
  output?: SchemaLike;
  onProgress?: (progress: EvalProgress) => void;
  /** Every case a span in the OpenTelemetry traces: `createTelemetry()` (the one the agent has, or another). */
  telemetry?: EvalTelemetry;
  /**
   * A file that records each finished case as a line, on disk (fsync) before the case counts as done.
   * Run again with the same journal, an evaluation that was killed picks up where it stopped: it keeps
   * the journal's run id (so its sessions' ids), takes the finished cases as they were, and goes on with
   * a case cut off mid-run from its stored session, so no stored model reply is asked for again. Needs
   * `store`. A case cancelled by `signal` is not journaled: the next run picks it up.
   */
  journal?: string;
  /** Groups the summary (and the reports) by a metadata key or a function of the case: per group, each scorer's mean and pass rate. */
  groupBy?: GroupBy;
};
