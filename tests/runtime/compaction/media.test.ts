// What images and documents count for in the compaction estimate (docs/compaction.md), and how the
// summarizer's transcript names them.
import { describe, expect, it } from 'vitest';
import { estimateTurnTokens, TURN_SURCHARGE_TOKENS } from '../../../src/runtime/compaction/estimate.js';
import { renderForSummary } from '../../../src/runtime/compaction/transcript.js';
import { IMAGE_MAX_TOKENS, PDF_PAGE_TOKENS, URL_DOCUMENT_PAGES, imageSize } from '../../../src/runtime/compaction/media.js';
import type { Block } from '../../../src/runtime/contract/turn.js';
import { gifBase64, jpegBase64, pdfBase64, pngBase64, webpBase64 } from '../../support/media.js';

const tokensOf = (block: Block) => estimateTurnTokens({ role: 'user', blocks: [block] }) - TURN_SURCHARGE_TOKENS;
const image = (mediaType: string, data: string): Block => ({ kind: 'image', source: { type: 'base64', mediaType, data } });

describe('media in the estimate', () => {
  it('reads the size of PNG, JPEG, GIF and WebP images from their headers', () => {
    expect(imageSize(pngBase64(800, 600))).toEqual({ width: 800, height: 600 });
    expect(imageSize(jpegBase64(1024, 768))).toEqual({ width: 1024, height: 768 });
    expect(imageSize(gifBase64(320, 200))).toEqual({ width: 320, height: 200 });
    expect(imageSize(webpBase64(4000, 3000))).toEqual({ width: 4000, height: 3000 });
    expect(imageSize('bm90IGFuIGltYWdl')).toBeUndefined();
  });

  it('counts an image as the API does, width × height / 750 after its downscaling, at most 1,600', () => {
    expect(tokensOf(image('image/png', pngBase64(800, 600)))).toBe(640);
    expect(tokensOf(image('image/gif', gifBase64(320, 200)))).toBe(Math.ceil((320 * 200) / 750));
    // 4000×3000 is scaled to 1568×1176 first: over the cap.
    expect(tokensOf(image('image/webp', webpBase64(4000, 3000)))).toBe(IMAGE_MAX_TOKENS);
    // Size unknown: the most an image costs.
    expect(tokensOf({ kind: 'image', source: { type: 'url', url: 'https://example.test/a.png' } })).toBe(IMAGE_MAX_TOKENS);
  });

  it('counts a PDF by its pages, a URL document as a few pages, and a text document as its text', () => {
    expect(tokensOf({ kind: 'document', source: { type: 'base64', mediaType: 'application/pdf', data: pdfBase64(3) } })).toBe(
      3 * PDF_PAGE_TOKENS,
    );
    expect(tokensOf({ kind: 'document', source: { type: 'url', url: 'https://example.test/a.pdf' } })).toBe(
      URL_DOCUMENT_PAGES * PDF_PAGE_TOKENS,
    );
    expect(tokensOf({ kind: 'document', source: { type: 'text', text: 'x'.repeat(400) } })).toBe(100);
  });

  it('names media in the summarizer’s transcript instead of dropping them unseen', () => {
    const { transcript } = renderForSummary(
      [
        {
          role: 'user',
          blocks: [
            { kind: 'text', text: 'What is this?' },
            image('image/png', pngBase64(10, 10)),
            { kind: 'document', title: 'Q3', source: { type: 'url', url: 'https://example.test/q3.pdf' } },
          ],
        },
      ],
      10_000,
    );
    expect(transcript).toBe(
      'User: What is this?\nUser attached [image, image/png]\nUser attached [document "Q3", https://example.test/q3.pdf]',
    );
  });
});
