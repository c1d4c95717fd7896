// A server whose tool definitions are huge (tests/mcp/fixtures/verbose-server.mjs, spawned for real):
// a definition goes to the model with every call once its tool is loaded, so a description is cut to
// `maxDescriptionChars` with a note, an input schema too large to send is refused, and the tools loaded
// stay inside the context budget.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, type McpClient } from '../../src/mcp/index.js';

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
