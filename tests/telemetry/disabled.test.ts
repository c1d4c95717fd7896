// Telemetry off costs nothing: an agent built without `telemetry` makes no span at all, even with an
// OpenTelemetry SDK registered, and nothing of indusagi's loads @opentelemetry/* unless
// `indusagi/telemetry` is imported (checked in a child process by a module resolve hook).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, MemorySessionStore } from '../../src/index.js';
import { createConductor } from '../../src/runtime/agent/index.js';
import type { ModelInvoker, ToolDefinition } from '../../src/index.js';
import type { ModelReply } from '../../src/runtime/contract/index.js';
import { reply, startAnthropicServer } from '../../src/testing/index.js';
import { startOtel, type Otel } from './otel-sdk.js';

let otel: Otel;
beforeAll(() => void (otel = startOtel()));
afterAll(() => otel.shutdown());
beforeEach(() => otel.reset());

const clock: ToolDefinition = { name: 'clock', description: 'The time.', inputSchema: { type: 'object' }, execute: () => '12:00' };
const replies = (): ModelReply[] => [
  { turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: 't1', name: 'clock', input: {} }] }, stopReason: 'tool_use' },
  { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Noon.' }] }, stopReason: 'end_turn' },
];

describe('without telemetry', () => {
  it('an agent makes no span, though an SDK is registered and listening', async () => {
    const script = replies();
    const invoke: ModelInvoker = async () => script.shift()!;
    const agent = createConductor({ model: 'm', tools: [clock], compaction: {} }, { invokeModel: invoke, store: new MemorySessionStore() });
    expect((await agent.submit('time?')).status).toBe('settled');
    await agent.close();
    expect(otel.spans()).toEqual([]);
  });

  it('through the Anthropic SDK, the only spans are the SDK’s own', async () => {
    const server = await startAnthropicServer();
    try {
      server.enqueue(reply.tools([{ name: 'clock', input: {} }]), reply.text('Noon.'));
      const agent = createAgent({ model: 'claude-test', tools: [clock] }, { client: server.client() });
      expect((await agent.submit('time?')).status).toBe('settled');
    } finally {
      await server.close();
    }
    const scopes = otel.spans().map((span) => span.instrumentationScope.name);
    expect(scopes).toEqual(['com.anthropic.sdk.typescript', 'com.anthropic.sdk.typescript']);
  });
});

describe('@opentelemetry/* is loaded', () => {
  const repo = resolve(import.meta.dirname, '../..');
  const fixtures = join(import.meta.dirname, 'fixtures');
  let scratch: string;
  beforeAll(async () => void (scratch = await mkdtemp(join(tmpdir(), 'indusagi-otel-load-'))));
  afterAll(() => rm(scratch, { recursive: true, force: true }));

  /** Runs the probe in `mode`; returns what it printed and every @opentelemetry import with its importer. */
  async function probe(mode: string): Promise<{ status: string; imports: Array<{ specifier: string; parent: string }> }> {
    const log = join(scratch, `${mode}.jsonl`);
    const args = [
      '--import',
      'tsx',
      '--import',
      pathToFileURL(join(fixtures, 'register-otel-imports.mjs')).href,
      join(fixtures, 'load-probe.ts'),
      mode,
    ];
    const child = spawn(process.execPath, args, {
      cwd: repo,
      env: { ...process.env, OTEL_IMPORTS_LOG: log },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(code, stderr).toBe(0);
    const text = await readFile(log, 'utf8').catch(() => '');
    return {
      status: stdout.trim(),
      imports: text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
    };
  }

  it('by nothing at all when an agent runs through the vendor-free runtime', async () => {
    const { status, imports } = await probe('runtime');
    expect(status).toBe('settled');
    expect(imports).toEqual([]);
  });

  it('by nothing at all when the root entry runs an agent over its own invoker (no vendor SDK is loaded, whose tracing would)', async () => {
    const { status, imports } = await probe('root');
    expect(status).toBe('settled');
    expect(imports).toEqual([]);
  });

  it('by indusagi/telemetry once it is imported, which the probe would see', async () => {
    const { status, imports } = await probe('telemetry');
    expect(status).toBe('settled');
    expect(imports.some((entry) => entry.parent.startsWith(pathToFileURL(join(repo, 'src/telemetry')).href))).toBe(true);
  });
});
