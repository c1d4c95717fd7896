import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { makeWorkspace, runCli } from './cli-process.js';

// With a key the command talks to the Anthropic API, or to any compatible endpoint named by
// ANTHROPIC_BASE_URL; a demo model started here stands in for that endpoint.
describe('indusagi chat with ANTHROPIC_API_KEY set', () => {
  let workspace: { dir: string; cleanup(): Promise<void> };
  let endpoint: DemoModel;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    endpoint = await startDemoModel({ chunkDelayMs: 0 });
  });
  afterAll(async () => {
    await endpoint.close();
    await workspace.cleanup();
  });

  it('uses the endpoint from ANTHROPIC_BASE_URL and the model from --model', async () => {
    const run = await runCli(['chat', '--model', 'claude-haiku-4-5'], workspace.dir, ['list files in src'], {
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: endpoint.baseURL,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^indusagi chat · session \\S+ · claude-haiku-4-5 via ${endpoint.baseURL.replace(/\./g, '\\.')}\\n`));
    expect(run.stdout).toContain('✓ files.list: greeting.txt');
  });
});
