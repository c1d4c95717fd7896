// `indusagi/runtime` and the root entry load no vendor SDK: importing them, and creating an agent on the
// default model, reaches neither `@anthropic-ai/sdk` nor `openai` nor the AI SDK; Claude's SDK is loaded
// by the first model call, not before. Checked in a child process by a module resolve hook, the way
// tests/telemetry/disabled.test.ts checks OpenTelemetry, with the default model answering from a
// loopback server so the probe also proves the hook sees the SDK once it is loaded.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';

const repo = resolve(import.meta.dirname, '../..');
const fixtures = join(import.meta.dirname, 'fixtures');
let scratch: string;
let server: AnthropicTestServer;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'indusagi-vendor-load-'));
  server = await startAnthropicServer();
});
afterAll(async () => {
  await server.close();
  await rm(scratch, { recursive: true, force: true });
});

type LogLine = { step: string } | { specifier: string; parent: string };

/** Runs the probe on `entry`; returns what it printed and the log: vendor imports between the step markers. */
async function probe(entry: 'root' | 'runtime'): Promise<{ printed: string; log: LogLine[] }> {
  const log = join(scratch, `${entry}.jsonl`);
  const args = ['--import', 'tsx', '--import', pathToFileURL(join(fixtures, 'register-vendor-imports.mjs')).href];
  const child = spawn(process.execPath, [...args, join(fixtures, 'vendor-probe.ts'), entry], {
    cwd: repo,
    env: { ...process.env, VENDOR_IMPORTS_LOG: log, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((done) => child.on('close', done));
  expect(code, stderr).toBe(0);
  const text = await readFile(log, 'utf8');
  return {
    printed: stdout.trim(),
    log: text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine),
  };
}

/** The vendor specifiers imported before the step marker `step`. */
function importedBefore(log: LogLine[], step: string): string[] {
  const at = log.findIndex((line) => 'step' in line && line.step === step);
  expect(at, `no ${step} marker`).toBeGreaterThanOrEqual(0);
  return log.slice(0, at).flatMap((line) => ('specifier' in line ? [line.specifier] : []));
}

describe('no vendor SDK is loaded', () => {
  it.each(['runtime', 'root'] as const)(
    'by importing the %s entry and creating an agent on the default model; the first call loads Claude’s',
    async (entry) => {
      server.enqueue(reply.text(`answered through ${entry}`));

      const { printed, log } = await probe(entry);

      expect(printed).toBe(`answered through ${entry}`);
      expect(importedBefore(log, 'imported')).toEqual([]);
      expect(importedBefore(log, 'created')).toEqual([]);
      // The probe can see an SDK load: the call itself brought @anthropic-ai/sdk in, and nothing else.
      const all = importedBefore(log, 'answered');
      expect(all).toContain('@anthropic-ai/sdk');
      expect(all.filter((specifier) => !specifier.startsWith('@anthropic-ai/sdk'))).toEqual([]);
    },
  );
});
