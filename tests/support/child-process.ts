// Runs a TypeScript script in a fresh Node process (`process.execPath --import tsx script ...args`) and
// collects what it printed, for tests that need a second process (restarts, resumes); or starts a bundled
// fixture and reads it line by line, for tests that talk to it or kill it mid-run.
import { spawn, type ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export type ChildOutput = { code: number | null; stdout: string; stderr: string };

/** Spawns the script asynchronously (so a server in this process can answer it) and resolves once it closes. */
export function runTsx(script: string, args: string[], options: { cwd?: string } = {}): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs a fixture that takes its arguments as one JSON string and prints its result as JSON. */
export async function runJsonChild<T>(script: string, args: unknown, options: { cwd?: string } = {}): Promise<T> {
  const { stdout, stderr } = await runTsx(script, [JSON.stringify(args)], options);
  try {
    return JSON.parse(stdout) as T;
  } catch {
    throw new Error(`child printed no result. stdout: ${stdout}\nstderr: ${stderr}`);
  }
}

/** A child process read line by line: every line it printed so far, and a wait for the first that matches. */
export type LineChild = {
  process: ChildProcess;
  lines: string[];
  /** The first line (printed already or later) that matches; rejects, with what the child printed, if it exits first. */
  waitFor(match: RegExp | ((line: string) => boolean)): Promise<string>;
  /** The exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  stderr(): string;
};

/**
 * Starts a bundled fixture (`bundleFixture`) that takes its arguments as one JSON string and reports
 * by lines on stdout. `stdin: 'pipe'` for a fixture the test talks to (approvals, a word to begin).
 */
export function startLines(bundle: string, args: unknown, options: { stdin?: 'pipe' | 'ignore' } = {}): LineChild {
  const child = spawn(process.execPath, [bundle, JSON.stringify(args)], { stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: (line: string) => void }> = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.test(line))) waiter.resolve(line);
    }
  });
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    waitFor: (match) =>
      new Promise<string>((resolve, reject) => {
        const test = typeof match === 'function' ? match : (line: string) => match.test(line);
        const seen = lines.find(test);
        if (seen !== undefined) return resolve(seen);
        waiters.push({ test, resolve });
        void exited.then(() =>
          reject(new Error(`the child exited before printing ${String(match)}. stdout: ${lines.join('\n')}\nstderr: ${stderr}`)),
        );
      }),
  };
}

/**
 * Bundles a TypeScript fixture into one ES module file in `dir`, so each child process starts in tens
 * of milliseconds instead of compiling TypeScript on start.
 */
export async function bundleFixture(entry: URL, dir: string): Promise<string> {
  const outfile = join(dir, basename(fileURLToPath(entry)).replace(/\.ts$/, '.mjs'));
  await build({
    entryPoints: [fileURLToPath(entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    // The bundle runs from a temporary folder; CommonJS dependencies inside it still need `require`.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  return outfile;
}
