import type Anthropic from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';
import type { ModelRequest } from '../../runtime/contract/model.js';

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
