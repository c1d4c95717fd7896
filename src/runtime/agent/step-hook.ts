import type { Compaction, PrepareStep, StepOverrides } from '../contract/step.js';
import type { Turn } from '../contract/turn.js';
import type { CondensationStep } from './condensation-step.js';
import type { ContextRun } from './context-run.js';
import { StepHookError } from './errors.js';

/** The producers of one run's per-step hook, asked in this order. */
export type StepProducers = {
  /** With handoffs: the agent that has the conversation (its system prompt, model and controls), after any handoff the last batch made. */
  handoff?: () => StepOverrides | undefined;
  /** The run's context manager, when the agent has one: its system texts and tools for every call. */
  context?: ContextRun;
  /** The agent's automatic condensation (`config.compaction`). */
  condensation?: CondensationStep;
  /** `config.prepareStep`: the user's, asked last, seeing what the others decided. */
  user?: PrepareStep;
};

/**
 * The one hook the loop asks before every model call, composed from its producers: condensation
 * decides against everything the call sends (the context manager's system text and tools included),
 * and when the run's first step condensed, the context manager prepares again on the condensed
 * messages (so recalled memory sees the room that freed). At most one condensation per step: a user
 * hook returning one when another producer already condensed throws `StepHookError`.
 */
export function composeStepHook(producers: StepProducers): PrepareStep | undefined {
  const { handoff, context, condensation, user } = producers;
  if (handoff === undefined && context === undefined && condensation === undefined && user === undefined) return undefined;
  return async (step) => {
    const overrides: StepOverrides = {};
    let messages = step.messages;
    if (condensation !== undefined) {
      const condensed = await condensation.decide(step, context?.sending());
      if (condensed !== undefined) {
        overrides.compaction = condensed;
        messages = condensedView(step.messages, condensed);
        if (context !== undefined && step.step === 0 && step.failure === undefined) await context.reprepare(messages);
      }
    }
    if (context !== undefined) {
      overrides.system = context.system;
      overrides.volatileSystem = context.volatileSystem;
    }
    // A handed-to agent speaks with its own system prompt; the context manager's texts are built on the first agent's.
    const agent = handoff?.();
    if (agent !== undefined) Object.assign(overrides, agent);
    if (user === undefined) return overrides;
    const seen = {
      ...step,
      messages,
      system: overrides.system ?? step.system,
      volatileSystem: overrides.volatileSystem ?? step.volatileSystem,
    };
    const own = (await user(seen)) ?? undefined;
    if (own === undefined) return overrides;
    // `condensation` was this field's name before compaction became the one word for it (issue 37): a
    // hook that still returns it would be ignored without a word, so it is refused with the new name.
    if (typeof own === 'object' && 'condensation' in own) {
      throw new StepHookError(
        'prepareStep returned `condensation`, which is now `compaction`: return { compaction: { summary, keptFrom } }',
      );
    }
    if (own.compaction !== undefined && overrides.compaction !== undefined) {
      throw new StepHookError('prepareStep returned a compaction for a step the agent already compacted; one compaction per step');
    }
    return { ...overrides, ...own };
  };
}

/** The messages as the call will send them after `condensation`: the summary, then the kept tail. */
export function condensedView(messages: readonly Turn[], condensation: Compaction): Turn[] {
  const view = [condensation.summary];
  for (let i = condensation.keptFrom; i < messages.length; i++) view.push(messages[i]);
  return view;
}
