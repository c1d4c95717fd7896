// The agent `indusagi serve` gives every tenant, as a real process with two tenants: it has no shell,
// and its file tools reach nothing outside the tenant's own workspace folder, however the path is put
// (`..`, absolute, through a symlink) and even when the tenant approves its own calls with `decisions`:
// not another tenant's files, sessions or memory, not the server's data folder, not the tokens file.
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { runCli } from '../cli/cli-process.js';
import { Client, killAll, modelEnv, reportChildrenOnFailure, startCli } from '../support/agent-server.js';

type WireBlock = { type: string; text?: string; content?: unknown; is_error?: boolean };

let dir: string;
let model: AnthropicTestServer;
let acme: Client;
let evil: Client;
const TOKENS = { acme: 'acme-token-0123456789abcdef', evil: 'evil-token-0123456789abcdef' };

/**
 * The model does what the prompt says: `call <tool> <json input>` calls that tool; a tool's result is
 * answered `done: ok <content>` or `done: error <content>`.
 */
async function startModel(): Promise<AnthropicTestServer> {
  const server = await startAnthropicServer();
  server.respond((body: { messages: Array<{ role: string; content: string | WireBlock[] }> }) => {
    const last = body.messages[body.messages.length - 1];
    const blocks: WireBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    const result = blocks.find((b) => b.type === 'tool_result');
    if (result !== undefined) {
      const content = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
      return reply.text(`done: ${result.is_error ? 'error' : 'ok'} ${content}`);
    }
    const prompt = blocks.map((b) => b.text ?? '').join('');
    const m = /^call (\S+) (.*)$/s.exec(prompt);
    if (m === null) return reply.text(`ok: ${prompt}`);
    return reply.tools([{ name: m[1], input: JSON.parse(m[2]) }]);
  });
  return server;
}

/** Runs `prompt` on a fresh thread, approving every call the run waits on (a tenant deciding for itself). */
async function run(api: Client, prompt: string): Promise<string> {
  const thread = `t-${Math.random().toString(36).slice(2)}`;
  await api.json('/threads', { id: thread }, 201);
  let ended = await api.json(`/threads/${thread}/runs/wait`, { prompt });
  while (ended.status === 'waiting' && ended.result.pendingApprovals.length > 0) {
    const decisions = ended.result.pendingApprovals.map((p: { approvalId: string }) => ({ approvalId: p.approvalId, approved: true }));
    ended = await api.json(`/threads/${thread}/runs/wait`, { decisions });
  }
  expect(ended.status).toBe('settled');
  return ended.result.text as string;
}

const call = (tool: string, input: object) => `call ${tool} ${JSON.stringify(input)}`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-served-tools-'));
  model = await startModel();
  const tokensFile = join(dir, 'tokens.json');
  await writeFile(
    tokensFile,
    JSON.stringify([
      { token: TOKENS.acme, tenant: 'acme', user: 'ana' },
      { token: TOKENS.evil, tenant: 'evil', user: 'eve' },
    ]),
  );
  const args = ['serve', '--port', '0', '--data', join(dir, 'data'), '--workspace', join(dir, 'ws'), '--tokens', tokensFile];
  const served = await startCli(args, modelEnv(model), /indusagi server on (\S+) /);
  acme = new Client(served.match[1], TOKENS.acme);
  evil = new Client(served.match[1], TOKENS.evil);
  // acme's data: a file in its workspace, a memory record and (by these runs) its sessions.
  expect(await run(acme, call('files_write', { path: 'secret.txt', content: 'ACME-SECRET-FILE' }))).toMatch(/^done: ok Wrote/);
  expect(await run(acme, call('memory_remember', { fact: 'ACME-SECRET-MEMORY' }))).toMatch(/^done: ok/);
});

afterEach(reportChildrenOnFailure);

afterAll(async () => {
  killAll();
  await model?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the agent indusagi serve gives each tenant', { timeout: 120_000 }, () => {
  it('has file, clock and memory tools and no shell, and says so', () => {
    for (const request of model.requests) {
      const body = request.body as { tools: Array<{ name: string }>; system: unknown };
      const names = body.tools.map((t) => t.name);
      expect(names).not.toContain('bash');
      expect(names).toEqual(
        expect.arrayContaining(['files_list', 'files_read', 'files_write', 'files_edit', 'clock_now', 'memory_recall']),
      );
      expect(JSON.stringify(body.system)).toMatch(/cannot run commands/);
    }
    expect(model.requests.length).toBeGreaterThan(0);
  });

  it("refuses every way tenant evil tries to reach acme's files, sessions and memory, the data folder and the tokens file", async () => {
    const data = join(dir, 'data');
    const acmeSessions = join(data, 'tenants', 'acme', 'sessions');
    const [session] = await readdir(acmeSessions);
    expect(session).toBeDefined();
    const memory = join(data, 'tenants', 'acme', 'memory.jsonl');
    const memoryBefore = await readFile(memory, 'utf8');
    expect(memoryBefore).toContain('ACME-SECRET-MEMORY');

    // evil's own file works: the tools are there, only the way out is shut.
    expect(await run(evil, call('files_write', { path: 'mine.txt', content: 'evil notes' }))).toMatch(/^done: ok/);
    expect(await run(evil, call('files_read', { path: 'mine.txt' }))).toBe('done: ok evil notes');

    // A symlink in evil's workspace leading out of it (as a checkout or an unpacked archive could hold).
    await symlink(dir, join(dir, 'ws', 'evil', 'way-out'));
    await mkdir(join(dir, 'ws', 'evil', 'sub'), { recursive: true });
    await symlink(join(dir, 'ws', 'acme'), join(dir, 'ws', 'evil', 'sub', 'acme-link'));

    const attempts = [
      call('files_read', { path: '../acme/secret.txt' }),
      call('files_read', { path: join(dir, 'ws', 'acme', 'secret.txt') }),
      call('files_read', { path: memory }),
      call('files_read', { path: join(acmeSessions, session) }),
      call('files_read', { path: `../../data/tenants/acme/sessions/${session}` }),
      call('files_read', { path: join(dir, 'tokens.json') }),
      call('files_read', { path: 'way-out/tokens.json' }),
      call('files_read', { path: 'way-out/data/tenants/acme/memory.jsonl' }),
      call('files_read', { path: 'sub/acme-link/secret.txt' }),
      call('files_list', { path: '..' }),
      call('files_list', { path: 'way-out/data/tenants' }),
      // Calls that wait for approval, approved by evil itself.
      call('files_write', { path: 'way-out/data/tenants/acme/memory.jsonl', content: 'overwritten' }),
      call('files_write', { path: '../acme/secret.txt', content: 'overwritten' }),
      call('files_write', { path: 'sub/acme-link/planted.txt', content: 'planted' }),
      call('files_edit', { path: '../acme/secret.txt', old_string: 'ACME', new_string: 'EVIL' }),
      call('bash', { command: `cat ${join(dir, 'tokens.json')} ${memory} ${join(acmeSessions, session)}` }),
    ];
    for (const prompt of attempts) {
      const text = await run(evil, prompt);
      expect(text, prompt).toMatch(/^done: error /);
      for (const secret of ['ACME-SECRET', TOKENS.acme, TOKENS.evil]) expect(text, prompt).not.toContain(secret);
    }
    expect(await readFile(join(dir, 'ws', 'acme', 'secret.txt'), 'utf8')).toBe('ACME-SECRET-FILE');
    expect(await readFile(memory, 'utf8')).toBe(memoryBefore);
    await expect(lstat(join(dir, 'ws', 'acme', 'planted.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('will not start with the data folder or the tokens file inside the workspace, or the workspace inside the data folder', async () => {
    await mkdir(join(dir, 'w2'));
    await writeFile(join(dir, 'w2', 'tokens.json'), JSON.stringify([{ token: TOKENS.acme, tenant: 'acme', user: 'ana' }]));
    const cases: Array<[string[], RegExp]> = [
      [['--workspace', dir, '--data', join(dir, 'server')], /--data .* lies inside --workspace/],
      [
        ['--workspace', join(dir, 'w2'), '--data', join(dir, 'd1'), '--tokens', join(dir, 'w2', 'tokens.json')],
        /--tokens .* lies inside --workspace/,
      ],
      [['--workspace', join(dir, 'data', 'ws'), '--data', join(dir, 'data')], /--workspace .* lies inside --data/],
      // Through a symlink: the real paths are compared.
      [['--workspace', join(dir, 'ws', 'evil', 'way-out'), '--data', join(dir, 'd2')], /--data .* lies inside --workspace/],
    ];
    for (const [extra, message] of cases) {
      const { code, stderr } = await runCli(['serve', '--port', '0', ...extra], dir, [], modelEnv(model));
      expect(code, extra.join(' ')).toBe(2);
      expect(stderr).toMatch(message);
    }
  });
});
