// Prompts as content (text, images, documents; base64 and URL) end to end through the real
// @anthropic-ai/sdk and the loopback server: the Messages API blocks sent, the session file that keeps
// them, a resume that sends them again, and the prompts refused before anything runs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore, type PromptBlock } from '../../../src/entries/runtime.js';
import { InvalidPromptError } from '../../../src/entries/errors.js';
import { registerModelCard, UnsupportedContentError } from '../../../src/runtime/models/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { pdfBase64, pngBase64 } from '../../support/media.js';

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-content-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const png = pngBase64(800, 600);

describe('content prompts', () => {
  it('sends an image prompt as Messages API blocks, stores it in the session file, and sends it again after a resume', async () => {
    server.enqueue(reply.text('A chart.'), reply.text('Rising.'));
    const prompt: PromptBlock[] = [
      { kind: 'text', text: 'What is in this image?' },
      { kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: png } },
    ];
    const first = createAgent({ model: 'claude-test' }, { client: server.client(), store: new SessionStore(dir) });
    const events: unknown[] = [];
    first.subscribe((event) => events.push(event));

    const snapshot = await first.submit(prompt);
    await first.close();

    const sent = [
      { type: 'text', text: 'What is in this image?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
    ];
    expect(server.requests[0].body.messages[0].content).toMatchObject(sent);
    expect(snapshot.messages[0].blocks).toEqual(prompt);
    expect(events.find((event) => (event as { kind: string }).kind === 'run_started')).toMatchObject({ prompt: 'What is in this image?' });
    const file = await readFile(join(dir, `${snapshot.sessionId}.jsonl`), 'utf8');
    expect(file).toContain(`"kind":"image","source":{"type":"base64","mediaType":"image/png","data":"${png}"}`);

    const again = createAgent({ model: 'claude-test' }, { client: server.client(), store: new SessionStore(dir) });
    const resumed = await again.resume(snapshot.sessionId);
    expect(resumed.messages[0].blocks).toEqual(prompt);
    await again.submit('Which way is it going?');
    await again.close();
    expect(server.requests[1].body.messages[0].content).toMatchObject(sent);
  });

  it('sends documents (PDF base64 with a title, PDF by URL, plain text) and images by URL', async () => {
    server.enqueue(reply.text('Read them.'));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const pdf = pdfBase64(2);

    await agent.submit([
      { kind: 'document', title: 'Q3 report', source: { type: 'base64', mediaType: 'application/pdf', data: pdf } },
      { kind: 'document', source: { type: 'url', url: 'https://example.test/q4.pdf' } },
      { kind: 'document', source: { type: 'text', text: 'Revenue rose 4%.' } },
      { kind: 'image', source: { type: 'url', url: 'https://example.test/chart.png' } },
      { kind: 'text', text: 'Compare these.' },
    ]);

    expect(server.requests[0].body.messages[0].content).toMatchObject([
      { type: 'document', title: 'Q3 report', source: { type: 'base64', media_type: 'application/pdf', data: pdf } },
      { type: 'document', source: { type: 'url', url: 'https://example.test/q4.pdf' } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Revenue rose 4%.' } },
      { type: 'image', source: { type: 'url', url: 'https://example.test/chart.png' } },
      { type: 'text', text: 'Compare these.' },
    ]);
  });

  it('refuses images and PDFs for a model whose card says it takes none, naming the model, before any request; a text document still goes', async () => {
    const remove = registerModelCard({
      id: 'claude-text',
      contextWindow: 200_000,
      maxOutputTokens: 8_192,
      input: { images: false, documents: false },
    });
    try {
      server.enqueue(reply.text('Read it.'));
      const agent = createAgent({ model: 'claude-text' }, { client: server.client() });

      const image = (await agent
        .submit([{ kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: png } }])
        .catch((e) => e)) as UnsupportedContentError;
      const document = (await createAgent({ model: 'claude-text' }, { client: server.client() })
        .submit([{ kind: 'document', source: { type: 'url', url: 'https://example.test/q4.pdf' } }])
        .catch((e) => e)) as UnsupportedContentError;

      // Refused before the prompt joins the conversation, as an invalid prompt is: the typed error itself, no run.
      expect(UnsupportedContentError.isInstance(image)).toBe(true);
      expect(image).toMatchObject({ kind: 'invalid_request', content: 'images' });
      expect(image.message).toContain('"claude-text" cannot take images');
      expect(document).toMatchObject({ name: 'UnsupportedContentError', content: 'documents' });
      expect(server.requests).toHaveLength(0);

      await createAgent({ model: 'claude-text' }, { client: server.client() }).submit([
        { kind: 'document', source: { type: 'text', text: 'Revenue rose 4%.' } },
      ]);
      expect(server.requests[0].body.messages[0].content).toMatchObject([
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Revenue rose 4%.' } },
      ]);
    } finally {
      remove();
    }
  });

  it('refuses a prompt it cannot send, naming the problem, before any request', async () => {
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const refused = async (prompt: unknown) => {
      const error = await agent.submit(prompt as PromptBlock[]).catch((e: unknown) => e);
      expect(InvalidPromptError.isInstance(error)).toBe(true);
      return (error as Error).message;
    };

    expect(await refused([])).toMatch(/the array of blocks is empty/);
    expect(await refused([{ kind: 'image', source: { type: 'base64', mediaType: 'image/tiff', data: png } }])).toMatch(
      /media type "image\/tiff"; expected one of image\/jpeg/,
    );
    expect(
      await refused([{ kind: 'image', source: { type: 'base64', mediaType: 'image/png', data: `data:image/png;base64,${png}` } }]),
    ).toMatch(/without a data: prefix/);
    expect(await refused([{ kind: 'image', source: { type: 'url', url: 'file:///etc/passwd' } }])).toMatch(/needs an http\(s\) "url"/);
    expect(await refused([{ kind: 'audio', source: {} }])).toMatch(/block 0 has kind "audio"/);
    expect(await refused([{ kind: 'text', text: '  ' }])).toMatch(/no visible text, image or document/);
    expect(await refused(42)).toMatch(/expected a string or an array/);
    expect(server.requests).toHaveLength(0);
  });
});
