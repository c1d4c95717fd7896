import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { ToolDefinition } from '../../runtime/contract/tool.js';
import { ToolError } from '../../runtime/tools/index.js';
import { field } from './files.js';
import type { Workspace } from './workspace.js';

export type BashOptions = {
  workspace: Workspace;
  /** When the call names none. Default 120 s; a call may ask for up to `maxTimeoutMs`. */
  timeoutMs?: number;
  /** Default 600 s. */
  maxTimeoutMs?: number;
  /** Characters of output the model gets: the first and the last half of it, the middle cut. Default 30,000. */
  maxOutputChars?: number;
};

/** After SIGTERM, how long a process group has to end before it gets SIGKILL. */
const KILL_GRACE_MS = 1_500;
const SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

/**
 * `bash`: runs a shell command in the workspace folder and returns what it printed (stdout and stderr
 * as their chunks arrive; two pipes, so their relative order is approximate) and how it ended. It waits for approval unless a rule the user set allows the
 * command (see `ApprovalRules`). The command runs in a process group of its own, with no terminal and
 * no input: when the call ends (the shell exits, the timeout passes, or the run is aborted by Ctrl-C)
 * the whole group is ended, SIGTERM then SIGKILL, so nothing it started lingers (a process that leaves
 * its group, `setsid` or a daemon, is beyond reach). A non-zero exit is a tool error carrying the output.
 */
export function bashTool(options: BashOptions): ToolDefinition {
  const defaultTimeout = options.timeoutMs ?? 120_000;
  const maxTimeout = options.maxTimeoutMs ?? 600_000;
  const maxChars = options.maxOutputChars ?? 30_000;
  return {
    name: 'bash',
    description: `Run a shell command (${SHELL} -c) in the workspace folder; returns its output (stdout and stderr) and exit code. No input, no terminal: avoid interactive commands. Times out after ${defaultTimeout / 1000} s unless timeout_seconds says otherwise (at most ${maxTimeout / 1000}). The user approves each command unless a rule allows it.`,
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'The command line' },
        timeout_seconds: { type: 'integer', minimum: 1, maximum: maxTimeout / 1000 },
      },
      required: ['command'],
    },
    needsApproval: true,
    async execute(input, ctx) {
      const command = field(input, 'command');
      const asked = (input as Record<string, unknown>).timeout_seconds;
      const timeoutMs = typeof asked === 'number' ? Math.min(maxTimeout, Math.max(1, asked) * 1000) : defaultTimeout;
      return runShell(command, options.workspace.root, timeoutMs, maxChars, ctx.signal);
    },
  };
}

async function runShell(command: string, cwd: string, timeoutMs: number, maxChars: number, signal: AbortSignal): Promise<string> {
  if (signal.aborted) throw new ToolError('[not started: the run was interrupted]');
  const output = new CappedText(maxChars);
  // detached: a new session and process group, so the group can be ended as one and no terminal reaches it.
  const child = spawn(SHELL, ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const group = child.pid;
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.add(chunk));

  let stopped: 'timeout' | 'aborted' | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const endGroup = () => {
    if (group === undefined || killTimer !== undefined) return;
    signalGroup(group, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(group, 'SIGKILL'), KILL_GRACE_MS);
  };
  const onAbort = () => {
    stopped ??= 'aborted';
    endGroup();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    stopped ??= 'timeout';
    endGroup();
  }, timeoutMs);

  let exit: { code: number | null; signal: NodeJS.Signals | null };
  try {
    exit = await new Promise((resolve, reject) => {
      child.once('error', reject);
      // The shell is gone: whatever it left in its group (a background job holding the pipes) goes too,
      // so 'close' comes.
      child.once('exit', (code, sig) => {
        endGroup();
        child.once('close', () => resolve({ code, signal: sig }));
      });
    });
  } catch (error) {
    throw new ToolError(`could not start ${SHELL}: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    signal.removeEventListener('abort', onAbort);
  }
  const text = output.text();
  // A tool error, not the abort reason: the run is aborted all the same, and the model (on /continue)
  // reads what the command printed before it was stopped.
  if (stopped === 'aborted') {
    throw new ToolError(
      `${text}${text === '' ? '' : '\n'}[stopped: the run was interrupted; the command and everything it started were ended]`,
    );
  }
  if (stopped === 'timeout') {
    throw new ToolError(
      `${text}${text === '' ? '' : '\n'}[timed out after ${timeoutMs / 1000} s: the command and everything it started were stopped]`,
    );
  }
  if (exit.code === 0) return text === '' ? '(no output)' : text;
  const how = exit.code !== null ? `exit code ${exit.code}` : `killed by ${exit.signal}`;
  throw new ToolError(`${text}${text === '' ? '' : '\n'}[${how}]`);
}

function signalGroup(group: number, name: NodeJS.Signals): void {
  try {
    process.kill(-group, name);
  } catch (error) {
    // ESRCH: the group has ended already.
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Output kept within `max` characters: the first half as it came, and the latest half. */
class CappedText {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly max: number) {}

  add(chunk: string): void {
    const room = Math.ceil(this.max / 2) - this.head.length;
    if (room > 0) {
      this.head += chunk.slice(0, room);
      chunk = chunk.slice(room);
    }
    if (chunk === '') return;
    this.tail += chunk;
    const keep = Math.floor(this.max / 2);
    if (this.tail.length > keep) {
      this.dropped += this.tail.length - keep;
      this.tail = this.tail.slice(this.tail.length - keep);
    }
  }

  text(): string {
    const whole = this.dropped === 0 ? this.head + this.tail : `${this.head}\n[… ${this.dropped} characters cut …]\n${this.tail}`;
    return whole.replace(/\n$/, '');
  }
}
