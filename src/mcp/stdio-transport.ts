import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export type StdioTransportOptions = {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  stderr: 'pipe' | 'inherit' | 'ignore';
  maxMessageBytes: number;
  /** Gets what the server writes to stderr, from its first byte, when `stderr` is `'pipe'`. */
  onStderr?: (chunk: Buffer) => void;
  /** Reads one line as a JSON-RPC message; throws for anything else. */
  parse(line: string): JSONRPCMessage;
};

/**
 * The client side of MCP's stdio transport: a spawned server, newline-delimited JSON-RPC on its stdin
 * and stdout. The SDK's own transport concatenates its whole buffer on every chunk and searches it
 * from the start, which makes one 20 MB message take seconds; this one keeps the chunks of a line
 * apart and looks for the newline only in the chunk that just came. A line that is not a message is
 * reported (`onerror`) and skipped; one longer than `maxMessageBytes` ends the connection.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private exited: Promise<void> | undefined;

  constructor(private readonly options: StdioTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child !== undefined) throw new Error('This stdio transport was started already.');
    const { command, args, env, cwd, stderr } = this.options;
    const child = spawn(command, [...args], { env, cwd, stdio: ['pipe', 'pipe', stderr], shell: false, windowsHide: true });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    void this.exited.then(() => {
      this.child = undefined;
      this.onclose?.();
    });
    child.stdout!.on('data', (chunk: Buffer) => this.read(chunk));
    const onStderr = this.options.onStderr;
    if (onStderr !== undefined) child.stderr?.on('data', onStderr);
    // A pipe that breaks is the process going away; its close event follows.
    child.stdin!.on('error', (error) => this.onerror?.(error));
    child.stdout!.on('error', (error) => this.onerror?.(error));
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || stdin.destroyed) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve, reject) => {
      const flushed = stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : undefined));
      if (flushed) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  /**
   * Closes stdin, which tells a well-behaved server to exit; one still running two seconds later is
   * sent SIGTERM, and SIGKILL two seconds after that. Resolves once the process is gone.
   */
  async close(): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (child === undefined || exited === undefined) return;
    child.stdin?.end();
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (await within(exited, 2000)) return;
      child.kill(signal);
    }
    await exited;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      const tail = chunk.subarray(start, newline);
      const line = this.pending.length === 0 ? tail : Buffer.concat([...this.pending, tail], this.pendingBytes + tail.length);
      this.pending = [];
      this.pendingBytes = 0;
      start = newline + 1;
      this.deliver(line.toString('utf8').replace(/\r$/, ''));
    }
    if (start < chunk.length) {
      this.pending.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      if (this.pendingBytes > this.options.maxMessageBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error(`The server sent a message longer than ${this.options.maxMessageBytes} bytes; the connection is closed.`));
        void this.close();
      }
    }
  }

  private deliver(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = this.options.parse(line);
    } catch (error) {
      const answer = malformedAnswer(line);
      if (answer === undefined) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      message = answer;
    }
    this.inbox.push(message);
    if (this.inbox.length === 1) setImmediate(this.drain);
  }

  // One message per turn of the event loop. The SDK handles a notification a microtask late but a
  // response at once, so a progress notification that came in the same chunk as its call's result would
  // otherwise find the call already answered and be dropped.
  private readonly inbox: JSONRPCMessage[] = [];
  private readonly drain = (): void => {
    const message = this.inbox.shift();
    if (message === undefined) return;
    if (this.inbox.length > 0) setImmediate(this.drain);
    this.onmessage?.(message);
  };
}

/**
 * A response to one of our requests whose result is not an object (`"result": 42`) fails the schema, and
 * skipping it like garbage left its request waiting for its whole timeout: it becomes an error response
 * for that request, so the call fails at once as a protocol error.
 */
function malformedAnswer(line: string): JSONRPCMessage | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (raw === null || typeof raw !== 'object') return undefined;
  const { id, result } = raw as { id?: unknown; result?: unknown };
  if ((typeof id !== 'string' && typeof id !== 'number') || !('result' in raw)) return undefined;
  if (result !== null && typeof result === 'object' && !Array.isArray(result)) return undefined;
  const kind = Array.isArray(result) ? 'an array' : result === null ? 'null' : `a ${typeof result}`;
  return { jsonrpc: '2.0', id, error: { code: -32603, message: `The server answered with ${kind} where a result object belongs.` } };
}

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
