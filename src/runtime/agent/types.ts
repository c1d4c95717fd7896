import type { CompactionPolicy } from '../contract/compaction.js';
import type { ModelControls, ModelInvoker, ModelUsage, ProviderOptions } from '../contract/model.js';
import type { ToolDefinition } from '../contract/tool.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import type { PendingApproval, RunEvent, RunSnapshot } from '../contract/events.js';
import type { RunLedger } from '../ledger/ledger.js';
import type { PrepareStep } from '../contract/step.js';
import type { InputGuardrail, OutputGuardrail } from '../contract/guardrail.js';
import type { Run } from './run.js';
import type { InputRequest } from './input-requests.js';
import type { InputAnswer } from '../contract/tool.js';
import type { SessionStoreLike } from '../store/types.js';
import type { ContextManagerLike } from '../contract/context.js';
import type { HistoryOptions } from '../history/tools.js';
import type { SchemaLike, StandardSchemaV1 } from '../../schema/index.js';
import type { RunLimits } from '../contract/limits.js';
import type { CallerRun } from '../contract/tool.js';

/** The model controls (`temperature`, `topP`, `stopSequences`, `toolChoice`, `thinking`) apply to every run; see docs/agent.md. */
export type AgentConfig = ModelControls & {
  /**
   * The model: its id, called through `deps.invokeModel` (or `createAgent`'s default, Claude), or an
   * invoker that carries its own id and card (`createOpenAIInvoker(client, { model })`, `fromAiSdk(model)`,
   * `anthropic(model)`, `fallbackModels([...])`). Either way it also picks the model card (window, output
   * cap, prices): the invoker's, else the registry's (`registerModelCard`).
   */
  model: string | ModelInvoker;
  /** The agent's name: what handoffs and telemetry call it, and what the session records as speaking. Default `main`. */
  name?: string;
  system?: string;
  tools?: readonly ToolDefinition[];
  /** Model calls allowed in one run before it faults with `max_steps`. Default 64. */
  maxSteps?: number;
  maxOutputTokens?: number;
  /** Overrides the model card's context window. */
  contextWindow?: number;
  /** Compact history automatically near the window. Omit to compact only when asked (`agent.condense()`). */
  compaction?: CompactionPolicy;
  /** Owns recall, tool loading and write-backs for each run (`createContextManager`); see docs/context.md. */
  context?: ContextManagerLike;
  sessionId?: string;
  /** Run a step's tool calls one at a time instead of all at once. Results are in call order either way. */
  sequential?: boolean;
  /**
   * History recall: with a store, the turns compaction takes out of the context stay searchable
   * through `history.search` and `history.read`, which the model gets once a compaction happened
   * (every summary says so). Default on; `false` turns it off; an object tunes how much a call returns.
   */
  history?: boolean | HistoryOptions;
  /**
   * Options for the model's provider, keyed by its id (`{ anthropic: { cacheTtl: '1h' } }`), passed to
   * every request untouched; the invoker checks its own key when the agent is created.
   */
  providerOptions?: ProviderOptions;
  /**
   * Asked before every model call of every run, after the agent's own compaction and context manager:
   * return overrides for that call (system text, tools, controls, a compaction of your own). See
   * `PrepareStep` and docs/agent.md.
   */
  prepareStep?: PrepareStep;
  /**
   * Check every prompt, beside the model call (or before it, `runInParallel: false`); one that trips
   * stops the run (`guardrail_tripped`) and takes it back. See docs/guardrails.md.
   */
  inputGuardrails?: InputGuardrail[];
  /** Check every tool call before it runs, and the final answer before the run settles; see docs/guardrails.md. */
  outputGuardrails?: OutputGuardrail[];
  /**
   * Agents the model may hand the conversation to (`handoff(config)` of `indusagi/agents`): each gets a
   * `transfer_to_<name>` tool, and the next model call of the run is that agent's (its system prompt,
   * tools and model), in the same session. See docs/subagents.md.
   */
  handoffs?: Handoff[];
  /** What every run may spend at most, counted over its sub-agents too; a run's own `limits` override these one by one. */
  limits?: RunLimits;
};

/** Another agent the model may hand the conversation to (`handoff(config)` of `indusagi/agents` makes one). */
export type Handoff = {
  /** The agent: its config, or a function returning it (agents that hand back to each other name each other). */
  readonly agent: AgentConfig | (() => AgentConfig);
  /** Its name, unique among the agents of one conversation. Default: the config's `name`. */
  readonly name?: string;
  /** What the model is told about the agent, in the description of the tool that hands over to it. */
  readonly description?: string;
  /** Its model, when it is not the conversation's invoker with the config's `model` id. */
  readonly invokeModel?: ModelInvoker;
};

/** A call's start, as `ConductorDeps.beforeToolRuns` is given it. */
export type ToolStartedEvent = Extract<RunEvent, { kind: 'tool_started' }>;

/** What the conductor is built from, all optional: the conductor knows no vendor. */
export type ConductorDeps = {
  /**
   * The model, through the one seam, when `config.model` is its id rather than the invoker itself (give
   * it in one place, not both). `createAgent` defaults it to Claude (`anthropic(config.model)`).
   */
  invokeModel?: ModelInvoker;
  /** Where sessions are kept. Default: in the agent's memory (no node ids, no branching). */
  store?: SessionStoreLike;
  /**
   * Instead of a store: the conversation so far, kept by you (as `runAgent`'s `messages`). The agent's
   * first session starts from these turns and records nothing, so a hook or context manager may
   * replace its context with any turns it likes; read where it ends from the snapshots.
   */
  messages?: readonly Turn[];
  ledger?: RunLedger;
  /**
   * Awaited after a call's `tool_started` is published and before its tool runs, for every call a crash
   * would leave interrupted rather than run again (its tool neither idempotent nor resumable): how a host
   * that stores events behind the run (the agent server) makes that start durable first, so a stream
   * read after a crash never shows such a call finishing without having shown it start. A rejection
   * keeps the call from running and ends the run with it. Absent, tools start at once.
   */
  beforeToolRuns?: (started: ToolStartedEvent) => Promise<void>;
  /**
   * Traces and measures the agent from outside (`createTelemetry()` of `indusagi/telemetry`): the
   * conductor hands it the config and deps to decorate and builds the agent through it. Absent, nothing
   * is decorated and nothing of OpenTelemetry is loaded.
   */
  telemetry?: AgentTelemetry;
};

/**
 * Decorates an agent from outside its core, once per definition: given the config and deps (the model
 * invoker resolved), it returns decorated ones (invoker, tools, guardrails, store), and as each
 * conversation opens it taps that conversation's ledger and wraps its conductor. The runtime knows
 * nothing else about it; `indusagi/telemetry` implements it.
 */
export interface AgentTelemetry {
  instrument(config: AgentConfig, deps: ConductorDeps): InstrumentedAgent;
}

/** What `AgentTelemetry.instrument` makes of a definition. */
export type InstrumentedAgent = {
  config: AgentConfig;
  deps: ConductorDeps;
  /** Called as a conversation opens: the ledger its events are published to, and its conductor as the user gets it. */
  conversation(ledger: RunLedger): { ledger: RunLedger; agent(conductor: Agent): Agent };
};

/** What one conversation is opened with (`AgentDefinition.open`); each one given overrides the deps' own. */
export type OpenOptions = {
  /**
   * The session: resumed from the store when it holds it (on the first run, or `resume`), else started
   * under this id. Default the config's `sessionId`, else a new id.
   */
  sessionId?: string;
  /** Instead of a store: the conversation so far, kept by you (see `ConductorDeps.messages`). */
  messages?: readonly Turn[];
  /** Where the conversation's events are published; default a ledger of its own. */
  ledger?: RunLedger;
  /** See `ConductorDeps.beforeToolRuns`. */
  beforeToolRuns?: (started: ToolStartedEvent) => Promise<void>;
};

/** `AgentDefinition.run`'s options: a run's, and the session it runs in (default a new one). */
export type RunOnceOptions = SubmitOptions & { sessionId?: string };

/**
 * An agent defined once: its model and card, its tools compiled with their validators, guardrails,
 * handoffs, limits and telemetry, resolved and checked when it is defined. Immutable and cheap to
 * share; each conversation is opened from it (`open`), which costs a session slot and a run queue.
 * `createAgent(config, deps)` is `defineAgent(config, deps).open()`. See docs/agent.md.
 */
export interface AgentDefinition {
  /** The agent's name (`config.name`, default `main`). */
  readonly name: string;
  /** The id of its model. */
  readonly model: string;
  /** A conductor over one conversation (the seeds' `Agent`): `submit`, `subscribe`, `resume`, `approve`, `close`... */
  open(options?: OpenOptions): Agent;
  /**
   * One run in a conversation of its own: opens it, submits `prompt`, closes it, and resolves with the
   * settled (or waiting) snapshot; rejects with the run's fault, after closing. For scripts and evaluations.
   */
  run<Schema extends StandardSchemaV1>(
    prompt: string | PromptBlock[],
    options: RunOnceOptions & { output: Schema },
  ): Promise<OutputSnapshot<StandardSchemaV1.InferOutput<Schema>>>;
  run(prompt: string | PromptBlock[], options?: RunOnceOptions): Promise<RunSnapshot>;
}

/** Per run: the model controls given here override the config's for this run only. */
export type SubmitOptions = ModelControls & {
  signal?: AbortSignal;
  /**
   * The answer must be one JSON value matching this schema (a Standard Schema such as zod, or a JSON
   * Schema): the snapshot's `output` holds it parsed and validated. An answer that does not match gets
   * one repair prompt, then the run faults `invalid_output`. See docs/agent.md.
   */
  output?: SchemaLike;
  /**
   * What this run may spend at most, counted over its sub-agents too (`RunLimits`): a model or tool
   * call that could cross a limit is not made, and the run faults `budget_exceeded`. Each limit given
   * here overrides the config's.
   */
  limits?: RunLimits;
  /**
   * The tool call this run is made for, when it is a sub-agent's (`ctx.caller` of that call): the run
   * spends from the calling run's limits too, so one budget covers the tree. `agentTool` passes it. Its
   * events are taken to travel up into the calling run: a per-step `snapshot` (a copy of the context)
   * is built only while someone watches that run, or subscribes to this agent.
   */
  parent?: CallerRun;
  /**
   * Another model for this run only: an invoker (it brings its own id and card) or a model id the agent's
   * invoker can call. The agent's own model (and its card's window for compaction) is unchanged.
   */
  model?: string | ModelInvoker;
};

/**
 * `submit`'s snapshot with `output` typed from a Standard Schema: present once the run settled; a run
 * that stopped `waiting` for approvals has none yet (the approval that settles it brings it).
 */
export type OutputSnapshot<Output> =
  (RunSnapshot & { status: 'settled'; output: Output }) | (RunSnapshot & { status: 'waiting'; output?: undefined });

/** What `agent.condense()` did: the `compacted` event it published, or null when there was nothing to compact. */
export type CompactionOutcome = {
  compacted: Extract<RunEvent, { kind: 'compacted' }> | null;
  snapshot: RunSnapshot;
};

export interface Agent {
  readonly sessionId: string;
  /**
   * Runs a prompt: text, or content blocks (text, images and documents, base64 or URL; see docs/agent.md).
   * With `output`, the snapshot carries the answer parsed and validated against that schema.
   */
  submit<Schema extends StandardSchemaV1>(
    prompt: string | PromptBlock[],
    opts: SubmitOptions & { output: Schema },
  ): Run<OutputSnapshot<StandardSchemaV1.InferOutput<Schema>>>;
  submit(prompt: string | PromptBlock[], opts?: SubmitOptions): Run;
  subscribe(handler: (e: RunEvent) => void): () => void;
  resume(sessionId: string): Promise<RunSnapshot>;
  abort(): void;
  /**
   * Runs the waiting tool call `approvalId` (its call id, or for a sub-agent's call the id
   * `pendingApprovals()` lists); the run goes on once every call of its batch is decided.
   */
  approve(approvalId: string, opts?: SubmitOptions): Run;
  /** Answers the waiting call `approvalId` with an error result saying the user rejected it (and why); it never runs. */
  reject(approvalId: string, reason?: string, opts?: SubmitOptions): Run;
  /**
   * Picks the loop up where the session stands, without a new prompt: a context that ends with a
   * prompt or tool results goes to the model; one that ends with an answer, or with calls waiting for
   * a decision, has nothing to run and settles (or waits) at once.
   */
  continue(opts?: SubmitOptions): Run;
  /**
   * Compacts the session now, whatever its size (as `/compact` does): the oldest turns become one
   * summary, the last `compaction.keepRecent` (default 8) stay verbatim, and the summary is recorded in
   * the session. A run of its own: it publishes `compacted` and `usage`, and faults `summarizer_failed`
   * without changing anything when the summary call fails.
   */
  condense(opts?: SubmitOptions): Promise<CompactionOutcome>;
  /**
   * Moves the session's live leaf to node `nodeId`, so the next prompt starts a new branch there (as
   * `/fork` does); the later turns stay in the session. Needs a store (`MemorySessionStore` for one in
   * memory). Refuses a node that is a reply whose tool calls have no result there. `null` moves it before
   * the first turn: the next prompt starts a new root (a conversation's first prompt asked again).
   */
  branchFrom(nodeId: string | null): Promise<RunSnapshot>;
  /**
   * Answers a question a running tool asked the person (`input_requested`, an MCP server's elicitation):
   * `{ action: 'accept', content }` (checked against the question's schema) or `{ action: 'decline' }` /
   * `{ action: 'cancel' }`. Not queued: the run is waiting on it. Throws `UnknownInputRequestError` for an
   * id nothing waits on, `InvalidInputAnswerError` for an answer that cannot be taken (the tool keeps waiting).
   */
  answer(requestId: string, answer: InputAnswer): void;
  /** The questions the running run's tools are waiting on. */
  pendingInputs(): InputRequest[];
  /** The calls of the current session waiting for a decision (after `resume` for a session read from a store). */
  pendingApprovals(): PendingApproval[];
  /**
   * Tokens billed over the whole current session: every model call stored in it, all branches and
   * summarizer calls included, earlier runs and processes too (read from the store). Queued behind runs.
   */
  sessionUsage(): Promise<ModelUsage>;
  /** Waits for queued work, then releases the session (the store's writer lock). Later calls reject. */
  close(): Promise<void>;
}
