import type {
  ContentBlock,
  EmbeddedResource,
  PromptMessage,
  BlobResourceContents,
  TextResourceContents,
} from '@modelcontextprotocol/sdk/types.js';
import type { DocumentBlock, ImageBlock, PromptBlock, TextBlock, Turn } from '../runtime/contract/turn.js';

/** Sound a tool returned (base64). No model turn carries audio, so the model is told it is there. */
export type McpAudioBlock = { kind: 'audio'; source: { type: 'base64'; mediaType: string; data: string } };
/** A pointer to a resource the server can read (`client.readResource(uri)`), not its contents. */
export type McpResourceLinkBlock = { kind: 'resource_link'; uri: string; name: string; description?: string; mimeType?: string };
/** A resource's contents embedded in a result: text, or bytes in base64 (`data`), with its URI and type. */
export type McpResourceBlock = { kind: 'resource'; uri: string; mimeType?: string } & ({ text: string } | { data: string });

/** One piece of an MCP result: text and images in the runtime's block kinds, and three kinds of MCP's own. */
export type McpContent = TextBlock | ImageBlock | McpAudioBlock | McpResourceLinkBlock | McpResourceBlock;

/** The contents of a resource as `readResource` returns them: text, or bytes in base64. */
export type McpResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; blob: string };

export function fromMcpContent(item: ContentBlock): McpContent {
  switch (item.type) {
    case 'text':
      return { kind: 'text', text: item.text };
    case 'image':
      return { kind: 'image', source: { type: 'base64', mediaType: item.mimeType, data: item.data } };
    case 'audio':
      return { kind: 'audio', source: { type: 'base64', mediaType: item.mimeType, data: item.data } };
    case 'resource_link': {
      const link: McpResourceLinkBlock = { kind: 'resource_link', uri: item.uri, name: item.name };
      if (item.description !== undefined) link.description = item.description;
      if (item.mimeType !== undefined) link.mimeType = item.mimeType;
      return link;
    }
    case 'resource':
      return fromResource(item.resource);
  }
}

function fromResource(resource: EmbeddedResource['resource']): McpResourceBlock {
  const base = resource.mimeType === undefined ? { uri: resource.uri } : { uri: resource.uri, mimeType: resource.mimeType };
  return 'text' in resource ? { kind: 'resource', ...base, text: resource.text } : { kind: 'resource', ...base, data: resource.blob };
}

/** A block as MCP content, for what `serveMcp` returns to its clients (a runtime document block too). */
export function toMcpContent(block: McpContent | DocumentBlock): ContentBlock {
  switch (block.kind) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
      return block.source.type === 'base64'
        ? { type: 'image', data: block.source.data, mimeType: block.source.mediaType }
        : { type: 'resource_link', uri: block.source.url, name: block.source.url };
    case 'audio':
      return { type: 'audio', data: block.source.data, mimeType: block.source.mediaType };
    case 'document': {
      const source = block.source;
      const uri = block.title ?? 'indusagi:document';
      if (source.type === 'text') return { type: 'resource', resource: { uri, mimeType: 'text/plain', text: source.text } };
      if (source.type === 'url') return { type: 'resource_link', uri: source.url, name: block.title ?? source.url };
      return { type: 'resource', resource: { uri, mimeType: source.mediaType, blob: source.data } };
    }
    case 'resource_link': {
      const link: ContentBlock = { type: 'resource_link', uri: block.uri, name: block.name };
      if (block.description !== undefined) link.description = block.description;
      if (block.mimeType !== undefined) link.mimeType = block.mimeType;
      return link;
    }
    case 'resource':
      return 'text' in block
        ? { type: 'resource', resource: { uri: block.uri, mimeType: block.mimeType, text: block.text } }
        : { type: 'resource', resource: { uri: block.uri, mimeType: block.mimeType, blob: block.data } };
  }
}

/**
 * What the model reads of a result. A tool result reaches the model as text, so text and text
 * resources are given whole and the rest is named (kind, type, size) rather than dropped unseen. With
 * no content at all, the structured content as JSON.
 */
export function resultText(content: readonly McpContent[], structured: unknown): string {
  if (content.length === 0) return structured === undefined ? '' : JSON.stringify(structured);
  return content.map(blockText).join('\n');
}

function blockText(block: McpContent): string {
  switch (block.kind) {
    case 'text':
      return block.text;
    case 'image':
      return block.source.type === 'base64'
        ? `[${block.source.mediaType} image, ${sizeOf(block.source.data)}, not shown]`
        : `[image at ${block.source.url}]`;
    case 'audio':
      return `[${block.source.mediaType} audio, ${sizeOf(block.source.data)}, not shown]`;
    case 'resource_link':
      return `[resource link: ${block.name} <${block.uri}>${block.mimeType ? `, ${block.mimeType}` : ''}]${block.description ? ` ${block.description}` : ''}`;
    case 'resource':
      return 'text' in block
        ? `[resource ${block.uri}]\n${block.text}`
        : `[resource ${block.uri}: ${block.mimeType ?? 'binary'}, ${sizeOf(block.data)}, not shown]`;
  }
}

function sizeOf(base64: string): string {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return `${Math.max(0, Math.floor((base64.length * 3) / 4) - padding).toLocaleString('en-US')} bytes`;
}

/**
 * `text` cut to at most `max` characters, with a note saying how much there was: a result the size
 * of a database dump must never fill the model's window.
 */
export function truncateText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = max;
  // Never half a surrogate pair.
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  const note = `[The result was cut to its first ${end.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters.]`;
  return { text: `${text.slice(0, end)}\n\n${note}`, truncated: true };
}

/** A prompt's messages as turns. What a turn cannot carry (audio, links, other binaries) is named in a text block. */
export function promptTurns(messages: readonly PromptMessage[]): Turn[] {
  return messages.map((message) => ({ role: message.role, blocks: [promptBlock(fromMcpContent(message.content))] }));
}

// A turn carries text, images and documents: an embedded text resource or PDF becomes a document titled by its URI.
function promptBlock(block: McpContent): PromptBlock {
  if (block.kind === 'text' || block.kind === 'image') return block;
  if (block.kind === 'resource') {
    if ('text' in block) return { kind: 'document', source: { type: 'text', text: block.text }, title: block.uri };
    if (block.mimeType?.startsWith('image/'))
      return { kind: 'image', source: { type: 'base64', mediaType: block.mimeType, data: block.data } };
    if (block.mimeType === 'application/pdf')
      return { kind: 'document', source: { type: 'base64', mediaType: block.mimeType, data: block.data }, title: block.uri };
  }
  return { kind: 'text', text: blockText(block) };
}

/** Resource contents as the SDK returns them, in our shape (and nothing else of the SDK's objects). */
export function resourceContents(contents: ReadonlyArray<TextResourceContents | BlobResourceContents>): McpResourceContents[] {
  return contents.map((item) => {
    const base = item.mimeType === undefined ? { uri: item.uri } : { uri: item.uri, mimeType: item.mimeType };
    return 'text' in item && typeof item.text === 'string'
      ? { ...base, text: item.text }
      : { ...base, blob: String((item as BlobResourceContents).blob) };
  });
}
