// `indusagi serve` on one machine as a real process: never open (a token made up and printed), a run
// killed with its process (SIGKILL mid-tool) picked up by the next process on the same folder with
// continue() semantics; and the command lines `serve` and `worker` refuse before doing anything.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrateServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import { runCli } from '../cli/cli-process.js';
import {
  Client,
  FIXTURE_AGENT,
  killAll,
  modelEnv,
  sseReader,
  startCli,
  startScriptedModel,
  untilLedgerHas,
  waitForEvent,
  reportChildrenOnFailure,
} from '../support/agent-server.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

let dir: string;
let model: AnthropicTestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-serve-'));
  model = await startScriptedModel();
});

afterEach(reportChildrenOnFailure);

afterAll(async () => {
  killAll();
  await model?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const READY = /indusagi server on (\S+) .*\ntoken \(tenant "default"\): (\S+)\n/;

describe('indusagi serve (one machine)', { timeout: 300_000 }, () => {
  it('makes up a token when given none; a run cut off by SIGKILL is picked up by the next process on the folder', async () => {
    const env = modelEnv(model, { INDUSAGI_TEST_LEDGER: join(dir, 'ledger.txt') });
    const args = ['serve', '--port', '0', '--data', join(dir, 'data'), '--agent', FIXTURE_AGENT];
    const first = await startCli(args, env, READY);
    const [, url, token] = first.match;
    expect(token).toMatch(/^[\w-]{32}$/);
    expect((await fetch(`${url}/threads`)).status).toBe(401);
    const api = new Client(url, token);
    await api.json('/threads', { id: 'cut' }, 201);
    const run = await api.json('/threads/cut/runs', { prompt: 'charge slowly 3' }, 202);
    const started = await waitForEvent(sseReader(await api.get(`/runs/${run.id}/stream`)), (e) => e.data.kind === 'tool_started');
    await untilLedgerHas(join(dir, 'ledger.txt'), `charge ${started.data.callId}`);
    first.child.kill('SIGKILL');
    await first.exited;

    // The next process makes up a token of its own: the tenant ("default") is the same, so are its threads.
    const second = await startCli(args, env, READY);
    const again = new Client(second.match[1], second.match[2]);
    const ended = await again.read(`/runs/${run.id}/wait`);
    expect(ended).toMatchObject({ status: 'settled', attempt: 2 });
    expect(ended.result.text).toMatch(/^done: Interrupted/);
    const ledger = (await readFile(join(dir, 'ledger.txt'), 'utf8')).split('\n');
    expect(ledger.filter((line) => line === `charge ${started.data.callId}`)).toHaveLength(1);
    const kinds = (await again.read(`/threads/cut`)).messages.map((turn: { role: string }) => turn.role);
    expect(kinds).toEqual(['user', 'assistant', 'user', 'assistant']);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('serves the offline demo model with --model demo even with a key set, and says so', async () => {
    const before = model.requests.length;
    const args = ['serve', '--port', '0', '--data', join(dir, 'demo-data'), '--model', 'demo'];
    const served = await startCli(args, modelEnv(model), READY);
    const [line, url, token] = served.match;
    expect(line).toContain('model: the offline demo model, a scripted stand-in for Claude (chosen by --model demo)');
    const api = new Client(url, token);
    await api.json('/threads', { id: 'demo' }, 201);
    const run = await api.json('/threads/demo/runs', { prompt: 'hello' }, 202);
    const ended = await api.read(`/runs/${run.id}/wait`);
    expect(ended.status).toBe('settled');
    expect(ended.result.text).toMatch(/demo/i);
    expect(model.requests.length).toBe(before);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('serves the offline demo model with INDUSAGI_MODEL=demo even with a key set, and says so', async () => {
    const before = model.requests.length;
    const args = ['serve', '--port', '0', '--data', join(dir, 'env-demo-data')];
    const served = await startCli(args, modelEnv(model, { INDUSAGI_MODEL: 'demo' }), READY);
    const [line, url, token] = served.match;
    expect(line).toContain('model: the offline demo model, a scripted stand-in for Claude (chosen by INDUSAGI_MODEL)');
    expect(line).not.toContain('api.anthropic.com');
    const api = new Client(url, token);
    await api.json('/threads', { id: 'env-demo' }, 201);
    const run = await api.json('/threads/env-demo/runs', { prompt: 'hello' }, 202);
    const ended = await api.read(`/runs/${run.id}/wait`);
    expect(ended.status).toBe('settled');
    expect(ended.result.text).toMatch(/demo/i);
    expect(model.requests.length).toBe(before);
    served.child.kill('SIGTERM');
    expect(await served.exited).toBe(0);
  });

  it('refuses command lines that cannot work, before anything starts', async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['worker'], {}, /worker needs --database/],
      [['serve', '--database', 'postgres://nowhere/db'], {}, /needs --tokens FILE or INDUSAGI_SERVER_TOKEN/],
      [['serve', '--port', 'eighty'], {}, /--port .* must be a whole number/],
      [['serve', '--worker'], {}, /--worker goes with --database/],
      [['serve', '--database', 'mysql://x'], {}, /must be a postgres:\/\/ URL/],
      [['serve', '--tokens', join(dir, 'missing.json')], {}, /--tokens .*not a readable JSON file/],
      [['serve', '--agent', join(dir, 'missing.ts'), '--port', '0', '--data', join(dir, 'refused')], {}, /--agent .* could not be loaded/],
    ];
    for (const [args, extra, message] of cases) {
      const { code, stderr } = await runCli(args, dir, [], { ...modelEnv(model), ...extra });
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
    }
    const help = await runCli(['serve', '--help'], dir);
    expect(help.stdout).toMatch(/^usage: indusagi serve/);
    expect(help.stdout).toContain('--database URL');
  });
});

// `worker` takes the same switch as `serve`: with a key set, `INDUSAGI_MODEL=demo` and `--model demo`
// each make a worker that runs the offline demo model, and the real endpoint hears nothing (issue 41.1).
describe.skipIf(postgresUrl === undefined)('indusagi worker on the offline demo model', { timeout: 300_000 }, () => {
  it('runs served runs on the demo model, chosen by INDUSAGI_MODEL or by --model demo, with a key set', async () => {
    const schema = freshSchema('wdemo');
    await migrateServer(postgresUrl!, { schema });
    const tokens = join(dir, 'worker-tokens.json');
    const token = 'worker-demo-token-0123456789ab';
    await writeFile(tokens, JSON.stringify([{ token, tenant: 'acme', user: 'ana' }]));
    const before = model.requests.length;
    const database = ['--database', postgresUrl!, '--schema', schema, '--workspace', join(dir, 'worker-workspace')];
    const served = await startCli(['serve', ...database, '--tokens', tokens, '--port', '0'], modelEnv(model), /indusagi server on (\S+)/);
    const byEnv = await startCli(['worker', ...database], modelEnv(model, { INDUSAGI_MODEL: 'demo' }), /indusagi worker .*\n/);
    const byFlag = await startCli(['worker', ...database, '--model', 'demo'], modelEnv(model), /indusagi worker .*\n/);
    expect(byEnv.match[0]).toContain('(model: the offline demo model, a scripted stand-in for Claude (chosen by INDUSAGI_MODEL))');
    expect(byFlag.match[0]).toContain('(model: the offline demo model, a scripted stand-in for Claude (chosen by --model demo))');
    const api = new Client(served.match[1], token);
    await api.json('/threads', { id: 'w' }, 201);
    // Runs on one thread go one at a time, so each is waited for before the next: either worker may take either.
    for (const prompt of ['hello', 'what time is it?']) {
      const run = await api.json('/threads/w/runs', { prompt }, 202);
      const ended = await api.read(`/runs/${run.id}/wait`);
      expect(ended.status, JSON.stringify(ended)).toBe('settled');
      expect(ended.result.text).toMatch(/demo/i);
    }
    expect(model.requests.length).toBe(before);
    for (const each of [byEnv, byFlag, served]) each.child.kill('SIGTERM');
    expect(await Promise.all([byEnv.exited, byFlag.exited, served.exited])).toEqual([0, 0, 0]);
  });
});
