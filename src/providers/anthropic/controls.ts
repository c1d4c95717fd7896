import type Anthropic from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { ModelControls, ModelRequest } from '../../runtime/contract/model.js';
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

/**
 * Puts the request's controls on the body in the Messages API's terms. `tool_choice` only goes with
 * tools. `temperature` and `top_p` are sent as given although this SDK version no longer types them
 * (newer Claude models deprecate sampling parameters): the API, not indusagi, says what a model takes.
 */
export function applyAnthropicControls(body: Anthropic.MessageStreamParams, request: ModelRequest): void {
  const sampling = body as { temperature?: number; top_p?: number };
  if (request.temperature !== undefined) sampling.temperature = request.temperature;
  if (request.topP !== undefined) sampling.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop_sequences = request.stopSequences;
  if (request.thinking !== undefined) body.thinking = { type: 'enabled', budget_tokens: request.thinking.budgetTokens };
  // Claude's structured outputs take a subset of JSON Schema; the SDK's transform fits the schema to it
  // (constraints it cannot enforce move into descriptions). The conductor validates against the full schema.
  if (request.responseFormat !== undefined)
    body.output_config = {
      format: { type: 'json_schema', schema: transformJSONSchema(request.responseFormat.schema as Record<string, unknown>) },
    };
  const choice = request.toolChoice;
  if (choice === undefined || request.tools.length === 0) return;
  body.tool_choice = typeof choice === 'string' ? { type: choice } : { type: 'tool', name: choice.tool };
}
