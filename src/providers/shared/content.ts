import type { ModelCard, ModelRequest } from '../../runtime/contract/model.js';
import type { Turn } from '../../runtime/contract/turn.js';
import { UnsupportedContentError } from './errors.js';

/**
 * Throws `UnsupportedContentError` when `turns` hold an image, or a PDF document, that `card` says its
 * model cannot take. A text document passes: it goes as text where a model takes no documents.
 */
export function checkContent(turns: readonly Turn[], card: ModelCard): void {
  const input = card.input;
  if (input === undefined) return;
  const refuse = (content: 'images' | 'documents', index: number) =>
    new UnsupportedContentError(
      content,
      `The model "${card.id}" cannot take ${content} (its model card says \`input.${content}: false\`); message ${index} of the conversation holds ${content === 'images' ? 'an image' : 'a PDF'}.`,
    );
  turns.forEach((turn, index) => {
    for (const block of turn.blocks) {
      if (block.kind === 'image' && input.images === false) throw refuse('images', index);
      if (block.kind === 'document' && block.source.type !== 'text' && input.documents === false) throw refuse('documents', index);
    }
  });
}

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
