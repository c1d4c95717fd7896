// Runs a TypeScript script in a fresh Node process (`process.execPath --import tsx script ...args`) and
// collects what it printed, for tests that need a second process (restarts, resumes).
import { spawn } from 'node:child_process';

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
