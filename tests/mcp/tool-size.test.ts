// A server whose tool definitions are huge (tests/mcp/fixtures/verbose-server.mjs, spawned for real):
// a definition goes to the model with every call once its tool is loaded, so a description is cut to
// `maxDescriptionChars` with a note, an input schema too large to send is refused, and the tools loaded
// stay inside the context budget.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextManager } from '../../src/context/index.js';
import { connectMcp, mcpToolSource, type McpClient } from '../../src/mcp/index.js';
import { definitionTokens, SEARCH_TOOLS, type SearchToolsResult } from '../../src/tools/index.js';

const VERBOSE = fileURLToPath(new URL('./fixtures/verbose-server.mjs', import.meta.url));
const verbose = (env: Record<string, string> = {}) => ({ command: process.execPath, args: [VERBOSE], env, needsApproval: false });

let client: McpClient;
beforeAll(async () => {
  client = await connectMcp('verbose', verbose());
});
afterAll(() => client.close());

describe('a 10 MiB tool description', () => {
  it('reaches the model cut to 8,192 characters, with a note saying how long it was; the tool still works', async () => {
    const tool = client.tools().find((t) => t.name === 'verbose.verbose')!;
    expect(tool.mcp.descriptionCutFrom).toBe(10 * 1024 * 1024);
    expect(tool.description.startsWith('Reports the weather. weather weather')).toBe(true);
    expect(tool.description).toMatch(/\n\n\[The server's description was cut to its first 8,192 of 10,485,760 characters\.\]$/);
    expect(tool.description.length).toBeLessThan(8_192 + 100);
    expect(await tool.execute({}, { signal: new AbortController().signal, callId: 'c1' })).toBe('verbose ran');
  });

  it('is held to maxDescriptionChars when the server config gives one', async () => {
    const short = await connectMcp('short', { ...verbose({ DESCRIPTION_CHARS: '5000' }), maxDescriptionChars: 100 });
    try {
      const tool = short.tools().find((t) => t.name === 'short.verbose')!;
      expect(tool.description).toMatch(
        /^Reports the weather\. .{79}\n\n\[The server's description was cut to its first 100 of 5,000 characters\.\]$/s,
      );
    } finally {
      await short.close();
    }
  });
});

describe('an input schema too large to send with every call', () => {
  it('refuses that tool, saying why, and offers the others', () => {
    expect(client.refused).toEqual([
      {
        server: 'verbose',
        name: 'wide',
        reason: expect.stringMatching(/^its inputSchema is 1,048,[0-9]{3} characters of JSON, past the 65,536 a tool may send the model$/),
      },
    ]);
    expect(client.tools().map((t) => t.name)).toEqual(['verbose.verbose']);
  });
});

describe('tools loaded by search_tools', () => {
  const count = (text: string) => Math.ceil(text.length / 4);
  const inList = (tools: Parameters<typeof definitionTokens>[0][] | null) =>
    (tools ?? []).reduce((sum, tool) => sum + definitionTokens(tool, count), 0);

  it('stay inside the context budget: a match whose definition does not fit is not loaded, and the model is told', async () => {
    // Ten tools of about 2,000 tokens each; the tools may take half of a 10,000-token budget.
    const big = await connectMcp('big', verbose({ DESCRIPTION_CHARS: '100', BIG_COUNT: '10', BIG_CHARS: '8000' }));
    try {
      const context = createContextManager({ budget: { maxTokens: 10_000, count }, sources: [mcpToolSource(big)] });
      expect(context.budget.maxToolTokens).toBe(5_000);
      const turn = { prompt: 'invoices', messages: [] };
      const first = await context.handle(SEARCH_TOOLS, { query: 'invoices' }, turn);
      const result = first!.result as SearchToolsResult;
      expect(result.found).toHaveLength(2);
      expect(result.skipped).toHaveLength(3);
      expect(result.skipped!.every((tool) => tool.tokens > 2_000 && tool.name.startsWith('big_big_'))).toBe(true);
      expect(result.note).toMatch(
        / Not loaded, as their definitions would not fit the [0-9,]+ tokens left for tools in the context: big_big_\d+ \(2,[0-9]{3} tokens\)/,
      );
      expect(inList(first!.tools)).toBeLessThanOrEqual(5_000);

      const second = await context.handle(SEARCH_TOOLS, { query: 'invoices' }, turn);
      const again = second!.result as SearchToolsResult;
      expect(again.found).toEqual([]);
      expect(again.note).toMatch(/^Not loaded, as their definitions would not fit/);
      expect(second!.tools).toEqual(first!.tools);
      expect(second!.parts).toEqual([]);
    } finally {
      await big.close();
    }
  });

  it('load as before when they fit, and maxToolTokens sets the share', async () => {
    const big = await connectMcp('big', verbose({ DESCRIPTION_CHARS: '100', BIG_COUNT: '10', BIG_CHARS: '8000' }));
    try {
      const context = createContextManager({ budget: { maxTokens: 100_000, maxToolTokens: 50_000, count }, sources: [mcpToolSource(big)] });
      const handled = await context.handle(SEARCH_TOOLS, { query: 'invoices' }, { prompt: 'invoices', messages: [] });
      expect((handled!.result as SearchToolsResult).found).toHaveLength(5);
      expect((handled!.result as SearchToolsResult).skipped).toBeUndefined();
      expect(() => createContextManager({ budget: { maxTokens: 100, maxToolTokens: 101, count }, sources: [] })).toThrow(
        /budget\.maxToolTokens must be a number from 0 up to maxTokens - reserve \(100\), got 101/,
      );
    } finally {
      await big.close();
    }
  });
});
