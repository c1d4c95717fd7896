import type { ModelCard } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
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
