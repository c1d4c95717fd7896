// MCP tried from code with no key: the offline demo model searches a catalog over a real MCP server
// (the reference everything server, spawned here) and calls the tool it loaded, as the CLI's `--mcp`
// does (tests/cli/mcp-demo.test.ts). The demo reads its prompt (`search tools for echo`, `call echo
// with hi`), so a reader can try the catalog before they have a key (issue 41.3).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, createContextManager } from '../../src/index.js';
import { demoModel } from '../../src/demo/index.js';
import { connectMcpServers, mcpToolSource, type McpServers } from '../../src/mcp/index.js';
import { everything } from './reference-servers.js';

let servers: McpServers;
beforeAll(async () => {
  servers = await connectMcpServers({ everything: everything() });
});
afterAll(() => servers?.close());

describe('the demo model over an MCP catalog, from code', () => {
  it('searches the catalog for echo, then calls the tool it loaded with the prompt’s text', async () => {
    const catalog = mcpToolSource(servers);
    const context = createContextManager({
      budget: { maxTokens: 100_000, count: (text) => Math.ceil(text.length / 4) },
      sources: [catalog],
    });
    const seen: string[][] = [];
    const demo = demoModel();
    // The demo model as the agent's model (it carries its own id), recording the tools each request offers.
    const model = Object.assign(
      (request: Parameters<typeof demo>[0]) => (seen.push((request.tools ?? []).map((t) => t.name)), demo(request)),
      demo,
    );
    const agent = createAgent({ model, tools: servers.tools(), context });
    try {
      const searched = await agent.submit('search tools for echo');
      expect(searched.status).toBe('settled');
      expect(searched.text).toContain('everything_echo');
      // Before the search only the meta-tool is offered; after it the loaded echo tool is too.
      expect(seen[0]).not.toContain('everything_echo');
      const called = await agent.submit('call echo with hi there');
      expect(called.status).toBe('settled');
      expect(seen.at(-1)).toContain('everything_echo');
      expect(called.text).toContain('Echo: hi there');
    } finally {
      await agent.close();
    }
  });
});
