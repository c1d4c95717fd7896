// The MCP servers the tests spawn: the reference servers installed as dev dependencies (nobody here
// wrote them) and our own hostile one, as server descriptions for connectMcp, and the everything
// server over HTTP, started on a free port and waited for until it says it listens.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioServer } from '../../src/mcp/index.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

export const EVERYTHING = join(packageDir('@modelcontextprotocol/server-everything'), 'dist/index.js');
export const FILESYSTEM = join(packageDir('@modelcontextprotocol/server-filesystem'), 'dist/index.js');
export const MEMORY = join(packageDir('@modelcontextprotocol/server-memory'), 'dist/index.js');
export const HOSTILE = fileURLToPath(new URL('./fixtures/hostile-server.mjs', import.meta.url));

export const everything = (): McpStdioServer => ({ command: process.execPath, args: [EVERYTHING, 'stdio'] });
export const filesystem = (root: string): McpStdioServer => ({ command: process.execPath, args: [FILESYSTEM, root] });
export const memory = (file: string): McpStdioServer => ({ command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: file } });
export const hostile = (env: Record<string, string> = {}): McpStdioServer => ({ command: process.execPath, args: [HOSTILE], env });

/** A port nothing listens on right now (the server that takes it binds a moment later). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The everything server over HTTP (`streamableHttp`, or `sse`, the 2024-11-05 transport), once it listens. */
export async function startEverythingHttp(mode: 'streamableHttp' | 'sse'): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk) => {
      said += chunk;
      if (/listening on port|running on port/.test(said)) resolve();
    });
    void exited.then(() => reject(new Error(`the everything server (${mode}) exited before it listened: ${said}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
    async close() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
