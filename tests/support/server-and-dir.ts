// Per-test lifecycle for tests that need a loopback Anthropic server and a scratch folder: both opened
// before each test and closed after it.
import { afterEach, beforeEach } from 'vitest';
import { startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';

export type TempDir = { path: string; remove: () => Promise<void> };

/**
 * Registers beforeEach/afterEach hooks: before each test, starts a server and makes a folder with
 * `tempDir`, handing both to `use`; after it, closes the server and removes the folder.
 */
export function serverAndDirPerTest(tempDir: () => Promise<TempDir>, use: (server: AnthropicTestServer, dir: TempDir) => void): void {
  let server: AnthropicTestServer;
  let dir: TempDir;
  beforeEach(async () => {
    server = await startAnthropicServer();
    dir = await tempDir();
    use(server, dir);
  });
  afterEach(async () => {
    await server.close();
    await dir.remove();
  });
}
