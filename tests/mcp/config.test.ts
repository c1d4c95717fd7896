// Server descriptions as users already have them: the mcpServers format of Claude Desktop and Claude
// Code, with ${VAR} expansion, read into checked configurations; and what is refused, with why.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseMcpServers, McpConfigError } from '../../src/mcp/index.js';
import { PACKAGE_VERSION } from '../../src/mcp/version.js';

describe('parseMcpServers', () => {
  it('reads stdio and HTTP servers, their type, and leaves out disabled ones and other clients’ keys', () => {
    const servers = parseMcpServers(
      {
        mcpServers: {
          files: {
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
            env: { DEBUG: '1' },
            alwaysAllow: ['read_file'],
          },
          github: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
          legacy: { type: 'sse', url: 'https://old.example.com/sse' },
          off: { command: 'x', disabled: true },
        },
        otherClientSettings: true,
      },
      'servers.json',
      { GITHUB_TOKEN: 'ghp_123' },
    );
    expect(servers).toEqual({
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'], env: { DEBUG: '1' } },
      github: { url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ghp_123' }, transport: 'streamable-http' },
      legacy: { url: 'https://old.example.com/sse', transport: 'sse' },
    });
  });

  it('expands ${VAR:-default}, and refuses an unset variable without a default, naming it and where it is', () => {
    const servers = parseMcpServers({ mcpServers: { a: { command: '${BIN:-node}', args: ['--port=${PORT:-3000}'] } } }, 'f.json', {});
    expect(servers.a).toEqual({ command: 'node', args: ['--port=3000'] });
    expect(() => parseMcpServers({ mcpServers: { a: { command: 'x', env: { KEY: '${API_KEY}' } } } }, '.mcp.json', {})).toThrow(
      '.mcp.json, server "a", env.KEY: the variable API_KEY is not set, and ${API_KEY} has no default (write ${API_KEY:-default}).',
    );
  });

  it('refuses what is not a servers file, naming the file and the server', () => {
    const cases: Array<[unknown, string]> = [
      [[], 'f.json: expected a JSON object with "mcpServers".'],
      [{ servers: {} }, 'f.json: "mcpServers" must be an object of server name -> { command } or { url }.'],
      [{ mcpServers: { a: 'npx thing' } }, 'f.json, server "a": expected an object.'],
      [{ mcpServers: { a: { type: 'ws', url: 'x' } } }, 'f.json, server "a": type must be "stdio", "http", "streamable-http" or "sse".'],
      [{ mcpServers: { a: { url: 'not a url' } } }, 'f.json: MCP server "a": url "not a url" is not a URL.'],
      [
        { mcpServers: { 'my server': { command: 'x' } } },
        'f.json: MCP server name "my server" must be 1 to 48 letters, digits, "_" or "-" (it prefixes its tools\' names, as "name.tool").',
      ],
    ];
    for (const [json, message] of cases) {
      let error: unknown;
      try {
        parseMcpServers(json, 'f.json', {});
      } catch (caught) {
        error = caught;
      }
      expect(McpConfigError.isInstance(error), message).toBe(true);
      expect((error as Error).message).toBe(message);
    }
  });
});

describe('the version a client and a server give in the handshake', () => {
  it('is the package’s', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });
});
