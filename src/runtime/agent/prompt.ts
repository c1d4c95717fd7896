import type { MediaSource, PromptBlock } from '../contract/turn.js';
import { InvalidPromptError } from './errors.js';

/** The image formats the Messages API takes. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** The document formats a base64 document may have (plain text goes as `{ type: 'text', text }`). */
export const DOCUMENT_MEDIA_TYPES: readonly string[] = ['application/pdf'];

/**
 * `submit`'s prompt read: plain text, or content blocks (text, images, documents) in order. `text` is
 * what events and memory recall see (the text blocks joined); `content` the blocks of a content
 * prompt, copied. Throws `InvalidPromptError` naming the first problem.
 */
export function readPrompt(prompt: unknown): { text: string; content?: PromptBlock[] } {
  if (typeof prompt === 'string') {
    if (prompt.trim() === '') throw new InvalidPromptError('it has no visible text');
    return { text: prompt };
  }
  if (!Array.isArray(prompt))
    throw new InvalidPromptError(
      `expected a string or an array of text, image and document blocks, got ${prompt === null ? 'null' : typeof prompt}`,
    );
  if (prompt.length === 0) throw new InvalidPromptError('the array of blocks is empty');
  const content = prompt.map((block, index) => checkBlock(block, index));
  if (!content.some((block) => block.kind !== 'text' || block.text.trim() !== ''))
    throw new InvalidPromptError('it has no visible text, image or document');
  const text = content.flatMap((block) => (block.kind === 'text' ? [block.text] : [])).join('\n');
  return { text, content };
}

function checkBlock(raw: unknown, index: number): PromptBlock {
  const block = raw as Record<string, unknown> | null;
  const where = `block ${index}`;
  if (typeof block !== 'object' || block === null) throw new InvalidPromptError(`${where} is not an object`);
  if (block.kind === 'text') {
    if (typeof block.text !== 'string') throw new InvalidPromptError(`${where} (text) has no string "text"`);
    return { kind: 'text', text: block.text };
  }
  if (block.kind === 'image')
    return { kind: 'image', source: checkSource(block.source, `${where} (image)`, IMAGE_MEDIA_TYPES, false) as MediaSource };
  if (block.kind === 'document') {
    if (block.title !== undefined && typeof block.title !== 'string')
      throw new InvalidPromptError(`${where} (document) has a non-string "title"`);
    const document: PromptBlock = {
      kind: 'document',
      source: checkSource(block.source, `${where} (document)`, DOCUMENT_MEDIA_TYPES, true),
    };
    if (typeof block.title === 'string') document.title = block.title;
    return document;
  }
  throw new InvalidPromptError(`${where} has kind ${JSON.stringify(block.kind)}; a prompt takes text, image and document blocks`);
}

type Source = { type: 'base64'; mediaType: string; data: string } | { type: 'url'; url: string } | { type: 'text'; text: string };

function checkSource(raw: unknown, where: string, mediaTypes: readonly string[], textAllowed: boolean): Source {
  const source = raw as Record<string, unknown> | null;
  if (typeof source !== 'object' || source === null) throw new InvalidPromptError(`${where} has no "source" object`);
  if (source.type === 'base64') {
    if (typeof source.mediaType !== 'string' || !mediaTypes.includes(source.mediaType)) {
      throw new InvalidPromptError(`${where} has media type ${JSON.stringify(source.mediaType)}; expected one of ${mediaTypes.join(', ')}`);
    }
    if (typeof source.data !== 'string' || source.data === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(source.data)) {
      throw new InvalidPromptError(`${where} has no base64 "data" (the bytes, base64-encoded, without a data: prefix)`);
    }
    return { type: 'base64', mediaType: source.mediaType, data: source.data };
  }
  if (source.type === 'url') {
    if (typeof source.url !== 'string' || !/^https?:\/\//.test(source.url)) throw new InvalidPromptError(`${where} needs an http(s) "url"`);
    return { type: 'url', url: source.url };
  }
  if (textAllowed && source.type === 'text') {
    if (typeof source.text !== 'string' || source.text === '') throw new InvalidPromptError(`${where} has no "text"`);
    return { type: 'text', text: source.text };
  }
  throw new InvalidPromptError(
    `${where} has a source of type ${JSON.stringify(source.type)}; expected base64, url${textAllowed ? ' or text' : ''}`,
  );
}
