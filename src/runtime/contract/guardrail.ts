import type { PromptBlock, Turn } from './turn.js';

/**
 * What a guardrail answers. `tripwireTriggered: true` trips the run: it stops at once, nothing more is
 * spent, and it is taken back (see docs/guardrails.md).
 */
export type GuardrailResult = {
  tripwireTriggered: boolean;
  /** Why, in a sentence a person can read: it becomes the trip's `message`, which the session keeps. */
  message?: string;
  /** Anything else the guardrail found (scores, matches): on the event and the error, never stored. */
  outputInfo?: unknown;
};

/** What a guardrail checked when it tripped: the prompt (an input guardrail), the final answer or one tool call (an output guardrail). */
export type GuardrailStage = 'input' | 'answer' | 'tool_call';

/**
 * Why a run tripped: on the `guardrail_tripped` event, the faulted snapshot, the error, and in the session
 * (a resumed agent's snapshot says it) until the next run or `branchFrom` moves on. Plain JSON.
 */
export type GuardrailTrip = {
  /** The guardrail's `name`. */
  guardrail: string;
  stage: GuardrailStage;
  /** The guardrail's `message`, or a sentence naming it; for a guardrail that threw, what it threw. */
  message: string;
  /** With stage `tool_call`: the call the guardrail stopped, which never ran. */
  callId?: string;
  toolName?: string;
  /** The run that tripped. */
  runId: string;
  /** When it tripped, in ms since the epoch. */
  at: number;
};

/** What every guardrail is given besides what it checks. */
export type GuardrailContext = {
  sessionId: string;
  runId: string;
  /** Fires when the run stops (another guardrail tripped, the run was aborted): a slow check should give up. */
  signal: AbortSignal;
};

/** What an input guardrail checks: the prompt of a run, before or while the model answers it. */
export type InputGuardrailArgs = GuardrailContext & {
  /** The prompt's text (its text blocks joined). */
  prompt: string;
  /** The prompt as given: text, images and documents. */
  content: PromptBlock[];
  /** The conversation the model is sent, the prompt last. Read it; never change it. */
  messages: readonly Turn[];
};

/** What an output guardrail checks: the run's final answer, or one tool call before it runs (or waits for approval). */
export type OutputGuardrailArgs = GuardrailContext &
  (
    | {
        stage: 'answer';
        /** The answer's text (the text blocks of the last assistant turn, joined). */
        text: string;
        /** With `submit(prompt, { output })`: the answer parsed and validated. */
        output?: unknown;
        messages: readonly Turn[];
      }
    | {
        stage: 'tool_call';
        /** The call, with the input its tool would run with (its schema's output). `name` is the tool's own name. */
        call: { callId: string; name: string; input: unknown };
        /** The conversation up to the reply that made the call. */
        messages: readonly Turn[];
      }
  );

/**
 * Checks every prompt (`AgentConfig.inputGuardrails`). By default it runs beside the run's first model
 * call, which is aborted if it trips; no tool runs and no answer settles before every input guardrail
 * passed. `runInParallel: false` runs it first: the model is called only once it passed.
 */
export type InputGuardrail = {
  name: string;
  execute(args: InputGuardrailArgs): GuardrailResult | Promise<GuardrailResult>;
  runInParallel?: boolean;
};

/**
 * Checks the final answer and every tool call (`AgentConfig.outputGuardrails`): switch on `args.stage`.
 * A call it trips on never runs; an answer it trips on never settles the run.
 */
export type OutputGuardrail = {
  name: string;
  execute(args: OutputGuardrailArgs): GuardrailResult | Promise<GuardrailResult>;
};
