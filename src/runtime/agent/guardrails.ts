import type { FaultKind } from '../contract/events.js';
import type { GuardrailContext, GuardrailStage, GuardrailTrip, InputGuardrail, OutputGuardrail } from '../contract/guardrail.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import { isSummaryTurn } from '../compaction/summary-turn.js';
import { firstTrip, type Verdict } from '../guardrails/first-trip.js';
import { GuardrailTripwireTriggered } from '../guardrails/errors.js';
import { AbortRace } from '../loop/abort.js';
import { lastAssistantText } from '../loop/batch.js';
import type { CheckedCall } from '../loop/types.js';
import { AgentConfigError } from './errors.js';
import type { RunScope } from './run-scope.js';
import type { AgentSession } from './session.js';
import type { AgentConfig } from './types.js';

/** What a run's guard needs of its agent (`AgentCore`): the guardrails, and what a run taken back resets. */
export type GuardedAgent = {
  readonly config: Pick<AgentConfig, 'inputGuardrails' | 'outputGuardrails'>;
  readonly carried: { previous?: unknown; output?: unknown };
  readonly sessions: { moved(): void };
};

/** Refuses guardrail lists that cannot work, when the agent is created (`AgentConfigError`). */
export function checkGuardrails(config: Pick<AgentConfig, 'inputGuardrails' | 'outputGuardrails'>): void {
  for (const key of ['inputGuardrails', 'outputGuardrails'] as const) {
    const list = config[key] as unknown;
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new AgentConfigError(`\`${key}\` must be an array of guardrails ({ name, execute }).`);
    const names = new Set<string>();
    list.forEach((raw: unknown, index) => {
      const guardrail = raw as Partial<InputGuardrail> | null;
      const where = `\`${key}[${index}]\``;
      if (typeof guardrail !== 'object' || guardrail === null)
        throw new AgentConfigError(`${where} is not a guardrail ({ name, execute }).`);
      if (typeof guardrail.name !== 'string' || guardrail.name === '') throw new AgentConfigError(`${where} needs a non-empty \`name\`.`);
      if (typeof guardrail.execute !== 'function')
        throw new AgentConfigError(`${where} ("${guardrail.name}") needs an \`execute\` function.`);
      if (guardrail.runInParallel !== undefined && (key === 'outputGuardrails' || typeof guardrail.runInParallel !== 'boolean'))
        throw new AgentConfigError(`${where} ("${guardrail.name}"): \`runInParallel\` is a boolean, for input guardrails only.`);
      // A trip names its guardrail: two of one name could not be told apart.
      if (names.has(guardrail.name)) throw new AgentConfigError(`${where}: two ${key} are named "${guardrail.name}".`);
      names.add(guardrail.name);
    });
  }
}

/**
 * One run's guardrails, per docs/guardrails.md. Input guardrails check the prompt: the blocking ones
 * (`runInParallel: false`) before the model is called, the others beside the first model call; no
 * tool runs and no answer settles before all of them passed. Output guardrails check every tool call
 * before it runs or waits for approval, and the final answer before the run settles. The first trip
 * publishes `guardrail_tripped` and aborts the run at once (a model call in flight, the other checks);
 * the run then faults `guardrail_tripped` and is taken back: the session returns to where it stood
 * when the run began, and records the trip. A run that stops before its prompt was checked is taken
 * back too (without a trip): a prompt no input guardrail passed never stays in the conversation.
 */
export class RunGuard {
  readonly #controller = new AbortController();
  readonly #context: GuardrailContext;
  #takeBack: (trip?: GuardrailTrip) => void;
  // The turn the context ended with when the run began, and what the agent carried into it.
  readonly #before: Turn | undefined;
  readonly #carried: GuardedAgent['carried'];
  #blocking: Promise<void> = Promise.resolve();
  #input: Promise<void> = Promise.resolve();
  #inputChecked = true;
  #tripped: GuardrailTripwireTriggered | undefined;
  // Set once the run's end is decided: a check finishing later changes nothing.
  #ended = false;

  private constructor(
    private readonly inputs: readonly InputGuardrail[],
    private readonly outputs: readonly OutputGuardrail[],
    private readonly scope: RunScope,
    private readonly session: AgentSession,
    private readonly agent: GuardedAgent,
  ) {
    this.#context = { sessionId: session.id, runId: scope.runId, signal: AbortSignal.any([scope.signal, this.#controller.signal]) };
    this.#takeBack = session.mark();
    this.#before = session.context.at(-1);
    this.#carried = { ...agent.carried };
  }

  /**
   * The guard of a run on `session`, made before the run takes anything the agent carried: a trip takes
   * the run back to where the session stands now. Undefined without guardrails.
   */
  static of(agent: GuardedAgent, scope: RunScope, session: AgentSession): RunGuard | undefined {
    const inputs = agent.config.inputGuardrails ?? [];
    const outputs = agent.config.outputGuardrails ?? [];
    if (inputs.length === 0 && outputs.length === 0) return undefined;
    return new RunGuard(inputs, outputs, scope, session, agent);
  }

  /**
   * Starts the input guardrails on the prompt the context ends with, when it ends with one (a new
   * prompt, or one `continue` picks up unanswered): resolves once the blocking ones passed.
   */
  async checkPrompt(): Promise<void> {
    const last = this.session.context.at(-1);
    if (this.inputs.length === 0 || last === undefined || !isPrompt(last)) return;
    // A prompt an earlier run left unanswered goes with this run if it trips: it never passed a check.
    if (last === this.#before) this.#takeBack = this.session.mark(true);
    const content = last.blocks as PromptBlock[];
    const args = {
      ...this.#context,
      prompt: content.flatMap((block) => (block.kind === 'text' ? [block.text] : [])).join('\n'),
      content,
      messages: this.session.context.slice(),
    };
    this.#inputChecked = false;
    const first = this.inputs.filter((guardrail) => guardrail.runInParallel === false);
    const beside = this.inputs.filter((guardrail) => guardrail.runInParallel !== false);
    this.#blocking = this.#judge(firstTrip(first, args), 'input');
    const parallel = this.#judge(firstTrip(beside, args), 'input');
    this.#input = Promise.all([this.#blocking, parallel]).then(() => {
      this.#inputChecked = true;
    });
    await this.#wait(this.#blocking);
  }

  /** `LoopInput.checkCalls`: the input guardrails passed, then every call passes the output guardrails. */
  readonly checkCalls = async (calls: CheckedCall[]): Promise<void> => {
    await this.#wait(this.#input);
    if (this.outputs.length === 0 || calls.length === 0) return;
    const messages = this.session.context.slice();
    await this.#wait(
      Promise.all(
        calls.map((call) =>
          this.#judge(firstTrip(this.outputs, { ...this.#context, stage: 'tool_call', call, messages }), 'tool_call', call),
        ),
      ),
    );
  };

  /** Before a run settles: the input guardrails passed, then the answer (`answer`: its structured value) passes the output guardrails. */
  async checkAnswer(messages: readonly Turn[], answer: { value: unknown } | undefined): Promise<void> {
    await this.#wait(this.#input);
    if (this.outputs.length === 0) return;
    const args = { ...this.#context, stage: 'answer' as const, text: lastAssistantText(messages), messages: messages.slice() };
    await this.#wait(this.#judge(firstTrip(this.outputs, answer === undefined ? args : { ...args, output: answer.value }), 'answer'));
  }

  /**
   * How a run that threw ends. Tripped: the `guardrail_tripped` failure, the run taken back and the
   * trip recorded. Otherwise, while input guardrails are still checking the prompt, they are waited
   * for (a trip wins over what went wrong meanwhile) unless the run was aborted; a prompt left unchecked
   * is taken back. Undefined: the run fails as it would have without guardrails.
   */
  async failureOf(): Promise<{ kind: FaultKind; error: GuardrailTripwireTriggered } | undefined> {
    if (this.#tripped === undefined && !this.#inputChecked && !this.scope.signal.aborted) {
      const race = new AbortRace(this.scope.signal);
      // Rejects only when the run is aborted meanwhile: the prompt is then taken back below, unchecked.
      await race.race(this.#input).catch(() => undefined);
      race.dispose();
    }
    this.#ended = true;
    this.#controller.abort();
    const tripped = this.#tripped;
    if (tripped === undefined && this.#inputChecked) return undefined;
    this.#takeBack(tripped?.trip);
    // The agent carries on from where the run began (a structured output request a waiting run left, the
    // reply calibration starts from); the recall index follows the live path.
    this.agent.carried.previous = this.#carried.previous;
    this.agent.carried.output = this.#carried.output;
    this.agent.sessions.moved();
    return tripped === undefined ? undefined : { kind: 'guardrail_tripped', error: tripped };
  }

  /** Waits for `work` unless the run stops first; throws the trip when there was one. */
  async #wait(work: Promise<unknown>): Promise<void> {
    const race = new AbortRace(this.scope.signal);
    try {
      await race.race(work);
    } catch (error) {
      throw this.#tripped ?? error;
    } finally {
      race.dispose();
    }
    if (this.#tripped !== undefined) throw this.#tripped;
  }

  /** Trips the run on `verdict`, when there is one and nothing tripped it before. */
  async #judge(verdict: Promise<Verdict | null>, stage: GuardrailStage, call?: CheckedCall): Promise<void> {
    const found = await verdict;
    // A check that failed because the run was stopped (its signal fired) is no verdict on the run.
    if (found === null || this.#tripped !== undefined || this.#ended || this.scope.signal.aborted) return;
    const trip: GuardrailTrip = { guardrail: found.guardrail, stage, message: found.message, runId: this.scope.runId, at: Date.now() };
    if (call !== undefined) {
      trip.callId = call.callId;
      trip.toolName = call.name;
    }
    this.#tripped = GuardrailTripwireTriggered.of(trip, found.outputInfo, found.cause === undefined ? undefined : { cause: found.cause });
    this.scope.publish({
      kind: 'guardrail_tripped',
      trip,
      ...(found.outputInfo !== undefined && { outputInfo: found.outputInfo }),
      runId: this.scope.runId,
    });
    // Nothing more is spent: the other checks and the model call in flight stop now.
    this.#controller.abort(this.#tripped);
    this.scope.abort();
  }
}

/** A user turn that is a prompt: not tool results, not a compaction summary. */
function isPrompt(turn: Turn): boolean {
  return (
    turn.role === 'user' &&
    !isSummaryTurn(turn) &&
    turn.blocks.every((block) => block.kind === 'text' || block.kind === 'image' || block.kind === 'document')
  );
}
