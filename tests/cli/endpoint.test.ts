import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { makeWorkspace, runCli } from './cli-process.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../support/openai-server.js';

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
    expect(run.stdout).toMatch(
      new RegExp(`^indusagi chat · session \\S+ · claude-haiku-4-5 via ${endpoint.baseURL.replace(/\./g, '\\.')}\\n`),
    );
    expect(run.stdout).toContain('✓ files.list: greeting.txt');
  });
});

// With OPENAI_API_KEY the command talks to OpenAI, or to the endpoint OPENAI_BASE_URL names; the
// loopback Responses API server stands in for it, behind the real openai client.
describe('indusagi chat with OPENAI_API_KEY set', () => {
  let workspace: { dir: string; cleanup(): Promise<void> };
  let server: OpenAITestServer;

  beforeAll(async () => {
    workspace = await makeWorkspace();
  });
  beforeEach(async () => {
    server = await startOpenAIServer();
  });
  afterEach(() => server.close());
  afterAll(() => workspace.cleanup());

  it('runs --model openai:MODEL through OPENAI_BASE_URL: tools, the streamed answer, the model card’s output cap', async () => {
    server.enqueue(
      response.calls([{ name: 'files_list', arguments: { path: 'src' }, callId: 'call_ls' }]),
      response.text('The src folder holds greeting.txt.'),
    );

    const run = await runCli(['chat', '--model', 'openai:gpt-5.4-mini'], workspace.dir, ['list files in src'], {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: server.baseURL,
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^indusagi chat · session \\S+ · openai:gpt-5\\.4-mini via ${server.baseURL.replace(/\./g, '\\.')}\\n`),
    );
    expect(run.stdout).toContain('✓ files.list:');
    expect(run.stdout).toContain('The src folder holds greeting.txt.');
    expect(server.requests[1].body.input.at(-1).output).toContain('greeting.txt');
    expect(server.requests[0].headers.authorization).toBe('Bearer sk-test');
    expect(server.requests[0].body).toMatchObject({ model: 'gpt-5.4-mini', max_output_tokens: 128_000 });
    expect(server.requests[1].body.input.at(-1)).toMatchObject({ type: 'function_call_output', call_id: 'call_ls' });
  });

  it('picks OpenAI’s default model when only OPENAI_API_KEY is set and --model names none', async () => {
    server.enqueue(response.text('Hello.'));

    const run = await runCli(['chat'], workspace.dir, ['hi'], { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseURL });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('· openai:gpt-5.4-mini via');
    expect(server.requests[0].body.model).toBe('gpt-5.4-mini');
  });

  it('falls back to the offline demo model, saying why, when the named provider’s key is missing', async () => {
    const run = await runCli(['chat', '--model', 'openai:gpt-5.4'], workspace.dir, ['hi'], { ANTHROPIC_API_KEY: 'sk-ant-unused' });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the offline demo model');
    expect(run.stdout).toContain('(--model openai:gpt-5.4 ignored: it needs OPENAI_API_KEY)');
    expect(server.requests).toHaveLength(0);
  });
});
