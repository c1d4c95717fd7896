import type { ModelCard, ModelInvoker } from '../contract/model.js';
import type { ResolvedModel } from '../models/resolve.js';
import type { StepInput } from '../contract/step.js';
import type { PromptBlock } from '../contract/turn.js';
import type { RunLedger } from '../ledger/ledger.js';
import type { ApprovalDecision, LoopTools } from '../loop/types.js';
import type { RunControls } from '../loop/controls.js';
import type { RunLimits } from '../contract/limits.js';
import type { CallerRun } from '../contract/tool.js';
import type { CompactionStep } from './compaction-step.js';
import type { AgentSession } from './session.js';
import type { SessionSlot } from './session-slot.js';
import type { OutputRequest } from './structured-output.js';
import type { CallerDeps } from './caller.js';
import type { Handoffs } from './handoffs.js';
import type { AgentConfig, ConductorDeps } from './types.js';

/** What the runs of one agent share: its settings, its session and what carries over from run to run. */
export type AgentCore = {
  readonly config: AgentConfig;
  readonly card: ModelCard;
  readonly maxSteps: number;
  /** The agent's tools as the loop runs them (history recall's gated). */
  readonly tools: LoopTools;
  readonly invoke: ModelInvoker;
  readonly ledger: RunLedger;
  /** See `ConductorDeps.beforeToolRuns`. */
  readonly beforeToolRuns: ConductorDeps['beforeToolRuns'];
  readonly sessions: SessionSlot;
  /** Behind `condense()`; asked before every call too when `automatic`. */
  readonly compaction: CompactionStep;
  readonly automatic: boolean;
  /** What the agent was built from, before telemetry decorated it: its sub-agents are built from it too. */
  readonly origin: CallerDeps;
  /** The agents the conversation may be handed to, and which has it (`config.handoffs`). */
  readonly handoffs: Handoffs | undefined;
  /** What a run leaves for the next run of the same session. */
  readonly carried: {
    /** The `output` request of a run that stopped waiting for approvals: the run deciding them answers it. */
    output?: OutputRequest;
    /** The last reply and what it was sent: the next run's first step calibrates from it. */
    previous?: StepInput['previous'];
  };
};

/** What one run is asked to do besides its prompt. */
export type RunPlan = {
  /** The prompt's text; null for a run without a new prompt (`approve`, `reject`, `continue`). */
  prompt: string | null;
  /** A prompt's content blocks, when it has more than text. */
  content?: PromptBlock[];
  /** Reads the session before the run starts; returns the decisions it applies, or throws to refuse it. */
  admit: (session: AgentSession) => ReadonlyMap<string, ApprovalDecision> | undefined;
  controls: RunControls;
  output?: OutputRequest;
  /** The model for this run, when it is not the agent's (`submit(prompt, { model })`). */
  model?: ResolvedModel;
  /** The run's limits (the config's, overridden by the run's own). */
  limits?: RunLimits;
  /** The sub-agent call this run is made for: it spends from that run's budget too. */
  parent?: CallerRun;
};

/** What a run is asked with beyond what it does (`SubmitOptions`, resolved). */
export type RunOptions = 'controls' | 'output' | 'model' | 'limits' | 'parent';
