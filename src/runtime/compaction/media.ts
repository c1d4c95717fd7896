import type { DocumentBlock, ImageBlock } from '../contract/turn.js';

/**
 * What an image or document costs in the context, in tokens, without a tokenizer (see
 * docs/compaction.md). An image: the Messages API's formula, width × height / 750, after the API's
 * own downscaling (long edge at most 1,568 px), at most 1,600; the size is read from the base64 header
 * (PNG, GIF, JPEG, WebP); an image whose size cannot be read (a URL, an unknown format) counts as the
 * most an image costs, 1,600. A PDF: 3,000 tokens a page (the upper end of the API's 1,500-3,000, each
 * page's text plus its image), pages counted in the file; a PDF at a URL as `URL_DOCUMENT_PAGES` pages.
 * A text document: its text, as any text.
 */
export const IMAGE_MAX_TOKENS = 1_600;
export const PDF_PAGE_TOKENS = 3_000;
export const URL_DOCUMENT_PAGES = 5;
const IMAGE_LONG_EDGE = 1_568;
const PIXELS_PER_TOKEN = 750;

export function imageTokens(block: ImageBlock): number {
  const size = block.source.type === 'base64' ? imageSize(block.source.data) : undefined;
  if (size === undefined) return IMAGE_MAX_TOKENS;
  const scale = Math.min(1, IMAGE_LONG_EDGE / Math.max(size.width, size.height));
  return Math.min(IMAGE_MAX_TOKENS, Math.ceil((size.width * scale * (size.height * scale)) / PIXELS_PER_TOKEN));
}

/** Tokens of a document; a text document's are its characters' (`charsPerToken`). */
export function documentTokens(block: DocumentBlock, charsPerToken: number): number {
  const source = block.source;
  if (source.type === 'text') return Math.ceil(source.text.length / charsPerToken);
  if (source.type === 'url') return URL_DOCUMENT_PAGES * PDF_PAGE_TOKENS;
  return Math.max(1, pdfPages(latin1(source.data))) * PDF_PAGE_TOKENS;
}

/** `[image, image/png]`, `[document "Q3 report", application/pdf]`: how transcripts name media they cannot show. */
export function mediaLabel(block: ImageBlock | DocumentBlock): string {
  const source = block.source;
  const what = source.type === 'base64' ? source.mediaType : source.type === 'url' ? source.url : 'text';
  const title = block.kind === 'document' && block.title !== undefined ? ` ${JSON.stringify(block.title)}` : '';
  return `[${block.kind}${title}, ${what}]`;
}

/** Base64 decoded to one character per byte (`atob`, so it runs in a browser too); '' when it is not base64. */
function latin1(base64: string): string {
  try {
    return atob(base64.replace(/\s+/g, ''));
  } catch {
    return '';
  }
}

/** The few reads the headers need, over a latin1 string. */
class Bytes {
  private constructor(private readonly text: string) {}
  static of(text: string): Bytes {
    return new Bytes(text);
  }
  get length(): number {
    return this.text.length;
  }
  at(i: number): number {
    return this.text.charCodeAt(i);
  }
  ascii(from: number, to: number): string {
    return this.text.slice(from, to);
  }
  u16be(i: number): number {
    return (this.at(i) << 8) | this.at(i + 1);
  }
  u16le(i: number): number {
    return this.at(i) | (this.at(i + 1) << 8);
  }
  u24le(i: number): number {
    return this.at(i) | (this.at(i + 1) << 8) | (this.at(i + 2) << 16);
  }
  u32be(i: number): number {
    return ((this.at(i) << 24) >>> 0) + ((this.at(i + 1) << 16) | (this.at(i + 2) << 8) | this.at(i + 3));
  }
  u32le(i: number): number {
    return (this.u16le(i) + this.u16le(i + 2) * 65_536) >>> 0;
  }
}

// Page objects, not the /Pages tree nodes.
function pdfPages(text: string): number {
  return text.match(/\/Type\s*\/Page(?![a-z])/g)?.length ?? 0;
}

/** Width and height from the first bytes of a PNG, GIF, WebP or JPEG, or undefined. */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  // The header is near the start (JPEG's SOF may follow metadata): 256 KiB decoded is plenty.
  const bytes = Bytes.of(latin1(base64.slice(0, 349_528)));
  if (bytes.length >= 24 && bytes.u32be(0) === 0x89504e47) return { width: bytes.u32be(16), height: bytes.u32be(20) };
  if (bytes.length >= 10 && bytes.ascii(0, 3) === 'GIF') return { width: bytes.u16le(6), height: bytes.u16le(8) };
  if (bytes.length >= 30 && bytes.ascii(0, 4) === 'RIFF' && bytes.ascii(8, 12) === 'WEBP') return webpSize(bytes);
  if (bytes.length >= 4 && bytes.at(0) === 0xff && bytes.at(1) === 0xd8) return jpegSize(bytes);
  return undefined;
}

function webpSize(bytes: Bytes): { width: number; height: number } | undefined {
  const chunk = bytes.ascii(12, 16);
  if (chunk === 'VP8 ') return { width: bytes.u16le(26) & 0x3fff, height: bytes.u16le(28) & 0x3fff };
  if (chunk === 'VP8L') {
    const bits = bytes.u32le(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') return { width: bytes.u24le(24) + 1, height: bytes.u24le(27) + 1 };
  return undefined;
}

function jpegSize(bytes: Bytes): { width: number; height: number } | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes.at(at) !== 0xff) return undefined;
    const marker = bytes.at(at + 1);
    // Start-of-frame markers carry the size; C4, C8 and CC are other tables.
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: bytes.u16be(at + 7), height: bytes.u16be(at + 5) };
    }
    at += 2 + bytes.u16be(at + 2);
  }
  return undefined;
}
