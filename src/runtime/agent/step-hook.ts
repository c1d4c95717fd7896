import type { Compaction, PrepareStep, StepOverrides } from '../contract/step.js';
import type { Turn } from '../contract/turn.js';
import type { CompactionStep } from './compaction-step.js';
import type { ContextRun } from './context-run.js';
import { StepHookError } from './errors.js';

/** The producers of one run's per-step hook, asked in this order. */
export type StepProducers = {
  /** With handoffs: the agent that has the conversation (its system prompt, model and controls), after any handoff the last batch made. */
  handoff?: () => StepOverrides | undefined;
  /** The run's context manager, when the agent has one: its system texts and tools for every call. */
  context?: ContextRun;
  /** The agent's automatic compaction (`config.compaction`). */
  compaction?: CompactionStep;
  /** `config.prepareStep`: the user's, asked last, seeing what the others decided. */
  user?: PrepareStep;
};

/**
 * The one hook the loop asks before every model call, composed from its producers: compaction
 * decides against everything the call sends (the context manager's system text and tools included),
 * and when the run's first step compacted, the context manager prepares again on the compacted
 * messages (so recalled memory sees the room that freed). At most one compaction per step: a user
 * hook returning one when another producer already compacted throws `StepHookError`.
 */
export function composeStepHook(producers: StepProducers): PrepareStep | undefined {
  const { handoff, context, compaction, user } = producers;
  if (handoff === undefined && context === undefined && compaction === undefined && user === undefined) return undefined;
  return async (step) => {
    const overrides: StepOverrides = {};
    let messages = step.messages;
    if (compaction !== undefined) {
      const compacted = await compaction.decide(step, context?.sending());
      if (compacted !== undefined) {
        overrides.compaction = compacted;
        messages = compactedView(step.messages, compacted);
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

/** The messages as the call will send them after `compaction`: the summary, then the kept tail. */
export function compactedView(messages: readonly Turn[], compaction: Compaction): Turn[] {
  const view = [compaction.summary];
  for (let i = compaction.keptFrom; i < messages.length; i++) view.push(messages[i]);
  return view;
}
