// Runs the real `indusagi` command as a child process (bundled once per run, see `cliArgv`), with its
// own working directory, so tests see exactly what a user sees: stdout, stderr, exit code, files.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { SessionStore } from '../../src/runtime/store/index.js';
import { OutputWatch, cliArgv, withUserConfig } from './output-watch.js';

export type Finished = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

export class CliProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  readonly finished: Promise<Finished>;
  private readonly watch = new OutputWatch();

  /** `env` is laid over a copy of the test's environment without any Anthropic or OpenAI key or endpoint. */
  constructor(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
    const base = { ...process.env };
    // The offline demo model unless a test says otherwise, whatever the machine has configured.
    delete base.ANTHROPIC_API_KEY;
    delete base.ANTHROPIC_BASE_URL;
    delete base.OPENAI_API_KEY;
    delete base.OPENAI_BASE_URL;
    this.child = spawn(process.execPath, cliArgv(args), { cwd, env: withUserConfig(base, env) });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.grow('stdout', chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => this.grow('stderr', chunk));
    this.finished = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', (code, signal) => resolve({ code, signal, stdout: this.stdout, stderr: this.stderr }));
    });
  }

  send(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  end(): Promise<Finished> {
    this.child.stdin.end();
    return this.finished;
  }

  /** Resolves once stdout (or `stream`) matches `pattern` (checked as output arrives; rejects if the process ends first). */
  waitFor(pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout'): Promise<RegExpMatchArray> {
    return this.watch.waitFor(
      () => this[stream],
      pattern,
      this.finished,
      () => `process ended without printing ${pattern}:\n${this.stdout}\n${this.stderr}`,
    );
  }

  private grow(stream: 'stdout' | 'stderr', chunk: string): void {
    this[stream] += chunk;
    this.watch.grew();
  }
}

/** Runs the command with `input` piped in (one prompt per line) and waits for it to exit. */
export function runCli(args: string[], cwd: string, input: string[] = [], env?: NodeJS.ProcessEnv): Promise<Finished> {
  const cli = new CliProcess(args, cwd, env);
  for (const line of input) cli.send(line);
  return cli.end();
}

/** A scratch workspace with a couple of files for the file tools to find. */
export async function makeWorkspace(): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-cli-'));
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'greeting.txt'), 'hello from the workspace\n');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A test file's scratch workspace (see `useWorkspace`). */
export type FileWorkspace = {
  /** The workspace folder; read it in a test or hook, once the file's `beforeAll` has made it. */
  readonly dir: string;
  /** A session store and memory file of the calling test's own, so "the latest session" is its: the flags, the folder, the store. */
  storeArgs(): { args: string[]; dir: string; store: SessionStore };
};

/** A scratch workspace (`makeWorkspace`) made before the calling test file's tests and removed after them. */
export function useWorkspace(): FileWorkspace {
  let workspace: Awaited<ReturnType<typeof makeWorkspace>> | undefined;
  let stores = 0;
  beforeAll(async () => {
    workspace = await makeWorkspace();
  });
  afterAll(async () => {
    await workspace?.cleanup();
  });
  const dirOf = () => {
    if (workspace === undefined) throw new Error('the workspace is made in beforeAll: read it in a test or hook');
    return workspace.dir;
  };
  return {
    get dir() {
      return dirOf();
    },
    storeArgs: () => {
      const dir = join(dirOf(), `store-${++stores}`);
      return { args: ['--store', dir, '--memory', join(dir, 'memory.jsonl')], dir, store: new SessionStore(dir) };
    },
  };
}

/** The session id the chat announces in its first line. */
export function sessionIdOf(stdout: string): string {
  const match = stdout.match(/^indusagi chat · session (\S+) ·/m);
  if (!match) throw new Error(`no session banner in:\n${stdout}`);
  return match[1];
}
