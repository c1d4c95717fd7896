export { checkContent } from '../../runtime/models/content.js';
import type { ModelCard, ModelRequest } from '../../runtime/contract/model.js';

/**
 * A text document as text, for an API whose documents are files: wrapped in a `<document>` tag that
 * carries its title, so the model can tell it from the prompt around it and name it.
 */
export function documentText(text: string, title: string | undefined): string {
  return `<document${title === undefined ? '' : ` title=${JSON.stringify(title)}`}>\n${text}\n</document>`;
}

/** The instruction that carries a required answer's JSON Schema to a model whose API cannot take one. */
export function outputInstruction(schema: object): string {
  return (
    'Your final answer (after any tool calls) must be one JSON value that matches this JSON Schema, with no other text ' +
    `and no code fence:\n${JSON.stringify(schema)}`
  );
}

/**
 * `request` with its `responseFormat` moved into the system text as `outputInstruction`, after the
 * volatile part (so the cached stable prefix stays as it was). For a model without native structured
 * output (`card.structuredOutput: 'instruction'`), or a schema its API cannot take.
 */
export function withOutputInstruction(request: ModelRequest): ModelRequest {
  const format = request.responseFormat;
  if (format === undefined) return request;
  const { responseFormat: _, ...rest } = request;
  const instruction = outputInstruction(format.schema);
  const volatile = request.volatileSystem;
  return { ...rest, volatileSystem: volatile === undefined || volatile === '' ? instruction : `${volatile}\n\n${instruction}` };
}

/** Whether `request`'s required answer goes natively to `card`'s model, else as an instruction. */
export function nativeOutput(card: ModelCard): boolean {
  return card.structuredOutput !== 'instruction';
}
