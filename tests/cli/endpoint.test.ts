import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
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

// `--model demo` and `INDUSAGI_MODEL=demo` choose the offline demo model even when a key is set: the
// endpoint the key would reach (a loopback Anthropic server here) gets no request at all.
describe('the offline demo model, chosen with a key set', () => {
  let workspace: { dir: string; cleanup(): Promise<void> };
  let endpoint: Awaited<ReturnType<typeof startAnthropicServer>>;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    workspace = await makeWorkspace();
    endpoint = await startAnthropicServer();
    env = { ANTHROPIC_API_KEY: 'sk-ant-real', ANTHROPIC_BASE_URL: endpoint.baseURL };
  });
  afterAll(async () => {
    await endpoint.close();
    await workspace.cleanup();
  });

  it('-p with --model demo answers offline and says it was chosen', async () => {
    const run = await runCli(['-p', 'list files in src', '--model', 'demo'], workspace.dir, [], env);

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('greeting.txt');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('-p with INDUSAGI_MODEL=demo answers offline, the key notwithstanding', async () => {
    const run = await runCli(['-p', 'read src/greeting.txt'], workspace.dir, [], { ...env, INDUSAGI_MODEL: 'demo' });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hello from the workspace');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('a chat with INDUSAGI_MODEL=demo names the demo model and why in its banner', async () => {
    const run = await runCli(['chat'], workspace.dir, ['list files in src'], { ...env, INDUSAGI_MODEL: 'demo' });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('the offline demo model, a scripted stand-in for Claude (chosen by INDUSAGI_MODEL)');
    expect(run.stdout).toContain('✓ files.list: greeting.txt');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('--model wins over INDUSAGI_MODEL', async () => {
    const run = await runCli(['chat', '--model', 'demo'], workspace.dir, ['hi'], { ...env, INDUSAGI_MODEL: 'openai:gpt-5.4' });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('(chosen by --model demo)');
    expect(endpoint.requests).toHaveLength(0);
  });

  it('--model names a real model over INDUSAGI_MODEL=demo: the agents the command makes call it', async () => {
    endpoint.enqueue(reply.text('From the real endpoint.'));
    const run = await runCli(['-p', 'hi', '--model', 'claude-haiku-4-5'], workspace.dir, [], { ...env, INDUSAGI_MODEL: 'demo' });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('From the real endpoint.');
    expect(endpoint.requests).toHaveLength(1);
    endpoint.requests.length = 0;
  });

  it('/model demo switches to it and its message does not claim that no key is set', async () => {
    const run = await runCli(['chat', '--model', 'claude-haiku-4-5'], workspace.dir, ['/model demo', 'list files in src'], {
      ...env,
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });

    expect(run.code).toBe(0);
    expect(run.stdout).toContain('now talking to the offline demo model, a scripted stand-in for Claude (chosen with /model)');
    expect(run.stdout).not.toContain('no ANTHROPIC_API_KEY or OPENAI_API_KEY is set');
    expect(run.stdout).toContain('✓ files.list: greeting.txt');
  });

  it('an unknown INDUSAGI_MODEL provider is a usage error, as the same --model is', async () => {
    const run = await runCli(['-p', 'hi'], workspace.dir, [], { ...env, INDUSAGI_MODEL: 'mistral:large' });

    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('unknown provider "mistral"');
    expect(endpoint.requests).toHaveLength(0);
  });
});
