// Claude's rules for the model controls, apart from how they go on a request (controls.ts), so checking a
// config when an agent is created loads nothing of the SDK.
import type { ModelControls } from '../../runtime/contract/model.js';
import { ModelControlsError } from '../../runtime/agent/errors.js';

/** The smallest thinking budget the Messages API accepts. */
export const MIN_THINKING_BUDGET = 1024;

/**
 * Claude's own rules for the controls, beyond the shared ones: `temperature` up to 1; a thinking budget
 * of at least 1,024 tokens and below `max_tokens`; with thinking on, no `temperature`, a `topP` of 0.95
 * or more, and no forced tool (`any` or a named one). Throws `ModelControlsError`.
 */
export function checkAnthropicControls(controls: ModelControls, limits: { maxOutputTokens: number }): void {
  const { temperature, topP, toolChoice, thinking } = controls;
  if (temperature !== undefined && temperature > 1)
    throw new ModelControlsError(`Claude takes a \`temperature\` from 0 to 1, got ${temperature}.`);
  if (thinking === undefined || thinking === false) return;
  const budget = thinking.budgetTokens;
  if (budget < MIN_THINKING_BUDGET)
    throw new ModelControlsError(`Claude needs a thinking budget of at least ${MIN_THINKING_BUDGET} tokens, got ${budget}.`);
  if (budget >= limits.maxOutputTokens) {
    throw new ModelControlsError(
      `The thinking budget (${budget}) must be below the output cap (maxOutputTokens ${limits.maxOutputTokens}), which counts thinking too.`,
    );
  }
  if (temperature !== undefined)
    throw new ModelControlsError('Claude does not take a `temperature` with thinking on; leave one of them out.');
  if (topP !== undefined && topP < 0.95)
    throw new ModelControlsError(`With thinking on, Claude takes a \`topP\` of 0.95 to 1, got ${topP}.`);
  if (toolChoice === 'any' || (typeof toolChoice === 'object' && toolChoice !== null)) {
    throw new ModelControlsError(
      'Claude cannot be forced to call a tool (`toolChoice` "any" or a named tool) with thinking on; use "auto".',
    );
  }
}
