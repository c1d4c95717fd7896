// The catalog over many real server processes (the hostile fixture listing ordinary tools): a menu
// that stays bounded as servers and tools are added, searches that load tools, your own tools always
// there, loaded tools that survive a changed tool list and come back from a stored conversation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, connectMcpServers, mcpToolSource, McpConfigError, type McpServers } from '../../src/mcp/index.js';
import type { ToolDefinition, Turn } from '../../src/runtime/index.js';
import { hostile } from './reference-servers.js';

const SERVERS = ['billing', 'calendar', 'weather', 'storage', 'tracker', 'crm', 'chat', 'docs', 'search', 'deploy'];

let ten: McpServers;
beforeAll(async () => {
  ten = await connectMcpServers(
    Object.fromEntries(SERVERS.map((name) => [name, hostile({ TOOL_COUNT: '50', TOOL_PREFIX: name, LIST_ONLY: '1' })])),
  );
});
afterAll(() => ten.close());

const notes: ToolDefinition = { name: 'notes.list', description: 'List my notes.', inputSchema: { type: 'object' }, execute: () => 'none' };

describe('the menu', () => {
  it('names every server with its tool count and a share of its tools, within menuSize names however many tools there are', () => {
    const catalog = mcpToolSource(ten, { menuSize: 20 });
    const lines = catalog.system!({ prompt: '', messages: [] }).split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'More tools are available but not loaded. Call search_tools with a few keywords (or a tool name below) to load them.',
      'MCP servers, with some of their tools:',
    ]);
    expect(lines.slice(2)).toEqual(SERVERS.map((name) => `- ${name} (50 tools): ${name}_0, ${name}_1, and 48 more`));
  });

  it('counts the servers past menuServers in one line', () => {
    const menu = mcpToolSource(ten, { menuServers: 3, menuSize: 6 }).system!({ prompt: '', messages: [] });
    expect(menu.split('\n').slice(2)).toEqual([
      '- billing (50 tools): billing_0, billing_1, and 48 more',
      '- calendar (50 tools): calendar_0, calendar_1, and 48 more',
      '- weather (50 tools): weather_0, weather_1, and 48 more',
      '- and 7 more servers with 350 tools',
    ]);
  });

  it('stays the same size from one server of 50 tools to ten of them: 500 tools cost the menu a few lines more', async () => {
    const one = await connectMcpServers({ billing: hostile({ TOOL_COUNT: '50', TOOL_PREFIX: 'billing', LIST_ONLY: '1' }) });
    try {
      const small = mcpToolSource(one).system!({ prompt: '', messages: [] });
      const large = mcpToolSource(ten).system!({ prompt: '', messages: [] });
      // The default menuSize is 40 names: one server shows 40 of its tools, ten servers show 4 each.
      expect(small.match(/billing_\d+/g)).toHaveLength(40);
      expect(large.match(/\b[a-z]+_\d+/g)).toHaveLength(40);
      expect(large.length).toBeLessThan(small.length * 2);
      expect(mcpToolSource(ten).tools!()).toHaveLength(1);
    } finally {
      await one.close();
    }
  });
});

describe('searching', () => {
  it('loads the best matches, which the model can call from its next step; your own tools are always there', async () => {
    const catalog = mcpToolSource(ten, { tools: [notes], k: 3 });
    expect(catalog.tools!().map((t) => t.name)).toEqual(['search_tools', 'notes_list']);
    const answer = await catalog.handle!('search_tools', { query: 'weather_7' });
    expect(answer?.event).toEqual({ op: 'loaded', tools: expect.arrayContaining(['weather.weather_7']) });
    expect(catalog.tools!().map((t) => t.name)).toEqual(expect.arrayContaining(['search_tools', 'notes_list', 'weather_weather_7']));
    expect(catalog.loaded()).toContain('weather.weather_7');
    expect(catalog.nameMap!().get('weather_weather_7')).toBe('weather.weather_7');
  });

  it('keeps loaded tools loaded when a server’s tool list changes', async () => {
    const client = await connectMcp('live', { ...hostile({ TOOL_COUNT: '5', TOOL_PREFIX: 'live' }), needsApproval: false });
    try {
      const catalog = mcpToolSource(client);
      await catalog.handle!('search_tools', { query: 'live_3' });
      expect(catalog.loaded()).toContain('live.live_3');
      const menu = catalog.system!({ prompt: '', messages: [] });
      const relisted = new Promise<void>((resolve) => client.onChange((change) => change.kind === 'tools' && resolve()));
      await client.callTool('grow');
      await relisted;
      expect(catalog.loaded()).toContain('live.live_3');
      expect(catalog.tools!().map((t) => t.name)).toContain('live_live_3');
      // The new tool is in the menu, and can be searched for.
      expect(catalog.system!({ prompt: '', messages: [] })).not.toBe(menu);
      expect(catalog.system!({ prompt: '', messages: [] })).toContain('grown_1');
      expect((await catalog.handle!('search_tools', { query: 'grown_1' }))?.event?.tools).toContain('live.grown_1');
    } finally {
      await client.close();
    }
  });

  it('refuses a pin no server offers', () => {
    expect(() => mcpToolSource(ten, { pin: ['billing.nope'] })).toThrow(McpConfigError);
    expect(mcpToolSource(ten, { pin: ['billing.billing_1'] }).tools!().map((t) => t.name)).toEqual(['search_tools', 'billing_billing_1']);
  });
});

describe('restore', () => {
  it('loads again what a stored conversation had loaded: the tools its searches found and the tools it called', () => {
    const messages: Turn[] = [
      { role: 'user', blocks: [{ kind: 'text', text: 'Deploy and bill' }] },
      { role: 'assistant', blocks: [{ kind: 'tool_call', id: 's1', name: 'search_tools', input: { query: 'deploy' } }] },
      {
        role: 'user',
        blocks: [
          {
            kind: 'tool_result',
            callId: 's1',
            content: JSON.stringify({ found: [{ name: 'deploy_deploy_4', description: '' }], note: '' }),
          },
        ],
      },
      { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'b1', name: 'billing.billing_9', input: {} }] },
      { role: 'user', blocks: [{ kind: 'tool_result', callId: 'b1', content: 'billing_9 ran' }] },
    ];
    const catalog = mcpToolSource(ten);
    expect(catalog.restore(messages).sort()).toEqual(['billing.billing_9', 'deploy.deploy_4']);
    expect(catalog.tools!().map((t) => t.name)).toEqual(expect.arrayContaining(['billing_billing_9', 'deploy_deploy_4']));
    expect(catalog.restore(messages)).toEqual([]);
    // The menu stays as it was: it changes with the servers' tool lists, never with what is loaded.
    expect(catalog.system!({ prompt: '', messages: [] })).toBe(mcpToolSource(ten).system!({ prompt: '', messages: [] }));
  });
});
