// The official MCP conformance suite (@modelcontextprotocol/conformance, run on the Node 22 binary of
// the `node` package, as it requires; both live in tools/mcp-conformance, installed by `npm ci --prefix
// tools/mcp-conformance`, so the project's own tests stay on Node 20), at protocol revision 2025-11-25,
// the one the SDK speaks: its client scenarios drive our client (fixtures/conformance-client.ts, through
// connectMcp), and its server scenarios test serveMcp (fixtures/conformance-server.ts). The server side
// may fail only the scenarios conformance-baseline.yml lists (none today); the suite itself fails a
// stale entry there.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFixture } from './bundle.js';

const TOOLS = fileURLToPath(new URL('../../tools/mcp-conformance/node_modules/', import.meta.url));
const NODE_22 = join(TOOLS, 'node/bin/node');
const SUITE = join(TOOLS, '@modelcontextprotocol/conformance/dist/index.js');
const installed = existsSync(NODE_22) && existsSync(SUITE);
if (!installed) {
  const why = 'the MCP conformance suite is not installed (npm ci --prefix tools/mcp-conformance)';
  // CI installs it (.ci/run): there a missing suite is a failure, never a skip.
  if (process.env.CI) throw new Error(`CI runs the MCP conformance suite, but ${why}.`);
  console.warn(`[indusagi] skipping tests/mcp/conformance.test.ts: ${why}.`);
}
const BASELINE = fileURLToPath(new URL('./conformance-baseline.yml', import.meta.url));

type Check = {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
};
type Outcome = { code: number | null; stdout: string };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-conformance-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

function suite(args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(NODE_22, [SUITE, ...args], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (error, stdout) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout }),
    );
  });
}

/** Each scenario's checks, from the suite's output folder (`<scenario>-<time>/checks.json`, auth scenarios one level down). */
async function checksIn(out: string): Promise<Map<string, Check[]>> {
  const found = new Map<string, Check[]>();
  for (const entry of await readdir(out, { recursive: true })) {
    if (!entry.endsWith('checks.json')) continue;
    const scenario = dirname(entry)
      .replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '')
      .replace(/^server-/, '');
    found.set(scenario, JSON.parse(await readFile(join(out, entry), 'utf8')) as Check[]);
  }
  return found;
}

/** The client's stdout and stderr in a client scenario (the suite keeps them beside its checks). */
async function clientOutput(out: string, scenario: string): Promise<string> {
  const folder = (await readdir(out, { recursive: true })).find(
    (entry) => entry.endsWith('checks.json') && dirname(entry).replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '') === scenario,
  );
  if (folder === undefined) return '';
  const read = (name: string) => readFile(join(out, dirname(folder), name), 'utf8').catch(() => '');
  return `stdout:\n${(await read('stdout.txt')).slice(-2000)}\nstderr:\n${(await read('stderr.txt')).slice(-4000)}`;
}

// The suite counts a warning against a scenario as it does a failure.
const failed = (checks: Check[]) => checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');

// The revision the SDK (and so connectMcp and serveMcp) speaks; the suite also holds scenarios of the
// 2026-07-28 draft, which ask for what no SDK release does yet.
const SPEC = '2025-11-25';
/**
 * Client scenarios of the draft or of extensions that a 2025-11-25 client passes all the same, run one
 * by one at 2025-11-25 (`--force`): what the suite ran before it sorted its scenarios by revision.
 */
const FORCED = [
  'auth/resource-mismatch',
  'auth/offline-access-scope',
  'auth/offline-access-not-supported',
  'auth/client-credentials-jwt',
  'auth/client-credentials-basic',
  'auth/enterprise-managed-authorization',
];

/** The client scenarios `list` names for a revision. */
async function listed(version: string): Promise<string[]> {
  const { stdout } = await suite(['list', '--client', '--spec-version', version]);
  return [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
}

describe.skipIf(!installed)('the conformance suite', () => {
  it('passes every client scenario of 2025-11-25 (and the 2025-03-26 back-compatibility ones) with connectMcp', async () => {
    const client = await bundleFixture('conformance-client.ts', dir);
    const out = join(dir, 'client');
    const command = `${process.execPath} ${client}`;
    // A client killed by the suite's timeout would fail its scenario; on a loaded machine 30 s is not enough.
    const run = (args: string[]) => suite(['client', '--command', command, '--timeout', '120000', '-o', out, ...args]);
    await run(['--suite', 'all', '--spec-version', SPEC]);
    await run(['--suite', 'all', '--spec-version', '2025-03-26']);
    for (const scenario of FORCED) await run(['--scenario', scenario, '--spec-version', SPEC, '--force']);
    const names = [...(await listed(SPEC)), ...(await listed('2025-03-26')), ...FORCED];
    const scenarios = await checksIn(out);
    // Every scenario ran (a forced one the suite renamed or dropped left no results).
    expect([...scenarios.keys()].sort()).toEqual([...new Set(names)].sort());
    for (const [scenario, checks] of scenarios) {
      // What our client printed there, so that a failure says why it did not do what was asked.
      const said = await clientOutput(out, scenario);
      expect(failed(checks), `${scenario}\n${said}`).toEqual([]);
      expect(
        checks.some((check) => check.status === 'SUCCESS'),
        scenario,
      ).toBe(true);
    }
    // sse-retry: the client came back once, and no sooner than the server's 500 ms retry said (the
    // suite fails only an early reconnection, so a loaded machine's late one passes).
    const retry = scenarios.get('sse-retry')!;
    expect(retry.find((check) => check.id === 'client-sse-retry-timing')).toMatchObject({
      status: 'SUCCESS',
      details: { expectedRetryMs: 500, getConnectionCount: 2 },
    });
  });

  it('passes every server scenario of 2025-11-25 with serveMcp, but those the baseline lists as unsupported', async () => {
    const script = await bundleFixture('conformance-server.ts', dir);
    const server = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        server.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
        void exited.then(() => reject(new Error('the conformance server exited before printing its URL')));
      });
      const out = join(dir, 'server');
      const { code, stdout } = await suite([
        'server',
        '--url',
        url,
        '--suite',
        'all',
        '--spec-version',
        SPEC,
        '--expected-failures',
        BASELINE,
        '-o',
        out,
      ]);
      expect(code, stdout.slice(-3000)).toBe(0);
      const scenarios = await checksIn(out);
      const passing = [...scenarios].filter(([, checks]) => failed(checks).length === 0).map(([name]) => name);
      // Every scenario but the baseline's: one that passed and regresses fails here (the suite fails one that starts passing).
      expect(passing.sort()).toEqual(
        [
          'completion-complete',
          'dns-rebinding-protection',
          'elicitation-sep1034-defaults',
          'elicitation-sep1330-enums',
          'json-schema-2020-12',
          'logging-set-level',
          'ping',
          'prompts-get-embedded-resource',
          'prompts-get-simple',
          'prompts-get-with-args',
          'prompts-get-with-image',
          'prompts-list',
          'resources-list',
          'resources-read-binary',
          'resources-read-text',
          'resources-subscribe',
          'resources-templates-read',
          'resources-unsubscribe',
          'server-initialize',
          'server-session-lifecycle',
          'server-sse-multiple-streams',
          'server-sse-polling',
          'tools-call-audio',
          'tools-call-elicitation',
          'tools-call-embedded-resource',
          'tools-call-error',
          'tools-call-image',
          'tools-call-mixed-content',
          'tools-call-sampling',
          'tools-call-simple-text',
          'tools-call-with-logging',
          'tools-call-with-progress',
          'tools-list',
        ].sort(),
      );
      expect(scenarios.size).toBe(33);
      // The suite counts a result sent on the call's open stream as only "INFO": test_reconnection must
      // have closed it (ctx.closeStream) and the result come after the reconnection with Last-Event-ID.
      expect(scenarios.get('server-sse-polling')!.find((check) => check.id === 'server-sse-disconnect-resume')).toMatchObject({
        status: 'SUCCESS',
        details: { receivedToolResponse: true },
      });
    } finally {
      server.kill('SIGTERM');
      await exited;
    }
  });
});
