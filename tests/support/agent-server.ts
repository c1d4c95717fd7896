// What the agent server's tests share: the scripted model (faked at the HTTP boundary, the Anthropic wire
// format through the real SDK), `indusagi serve` / `indusagi worker` as real processes, an HTTP client
// with a token, and an SSE reader that keeps every event id.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { reply, startAnthropicServer, type AnthropicTestServer, type Script } from '../../src/testing/index.js';
import { cliArgv } from '../cli/output-watch.js';

export const FIXTURE_AGENT = fileURLToPath(new URL('../server/fixtures/agent.ts', import.meta.url));

type WireBlock = { type: string; text?: string; content?: unknown };

/**
 * The model every server test talks to, answering by what the last user message says:
 * - `charge N` calls `ledger.charge` (not idempotent); `charge slowly N` makes the call hang until its
 *   worker dies or the run is canceled; `charge and die N` makes the call SIGKILL its own worker the
 *   moment it has charged (a worker dying as a tool starts), in a reply billed 50 input tokens;
 * - `wire N` calls `wire.send`, which waits for approval;
 * - `wait` calls `slow.wait`, which runs until the run is aborted;
 * - `ask` calls `ask.person`, which asks the person how many (`ToolContext.ask`) and returns the answer;
 * - `story K` streams K words, `delayMs` apart;
 * - tool results get `done: …`; anything else `ok: <prompt>`.
 */
export async function startScriptedModel(options: { delayMs?: number } = {}): Promise<AnthropicTestServer> {
  const model = await startAnthropicServer();
  model.respond((body: { messages: Array<{ role: string; content: string | WireBlock[] }> }) => answer(body, options.delayMs ?? 5));
  return model;
}

function answer(body: { messages: Array<{ role: string; content: string | WireBlock[] }> }, delayMs: number): Script {
  const last = body.messages[body.messages.length - 1];
  const blocks: WireBlock[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
  const prompt = blocks
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('')
    .trim();
  if (prompt === '') {
    const results = blocks
      .filter((b) => b.type === 'tool_result')
      .map((b) => (typeof b.content === 'string' ? b.content : JSON.stringify(b.content)));
    return reply.text(`done: ${results.join(' | ')}`, { chunks: ['done: ', results.join(' | ')], frameDelayMs: delayMs });
  }
  let m: RegExpMatchArray | null;
  if ((m = /^charge and die (\d+)/.exec(prompt)))
    return reply.tools([{ name: 'ledger_charge', input: { amount: Number(m[1]), die: true } }], {
      text: 'Charging.',
      usage: { input_tokens: 50, output_tokens: 5 },
    });
  if ((m = /^charge slowly (\d+)/.exec(prompt)))
    return reply.tools([{ name: 'ledger_charge', input: { amount: Number(m[1]), hang: true } }], { text: 'Charging.' });
  if ((m = /^charge (\d+)/.exec(prompt)))
    return reply.tools([{ name: 'ledger_charge', input: { amount: Number(m[1]) } }], { text: 'Charging.', frameDelayMs: delayMs });
  if ((m = /^wire (\d+)/.exec(prompt)))
    return reply.tools([{ name: 'wire_send', input: { amount: Number(m[1]) } }], { text: 'Wiring.', frameDelayMs: delayMs });
  if (/^wait/.test(prompt)) return reply.tools([{ name: 'slow_wait', input: {} }], { text: 'Waiting.' });
  if (/^ask/.test(prompt)) return reply.tools([{ name: 'ask_person', input: {} }], { text: 'Asking.' });
  // `delegate TASK`: the agent's sub-agent tool (`helper`) gets TASK as its prompt.
  if ((m = /^delegate (.+)$/.exec(prompt))) return reply.tools([{ name: 'helper', input: { prompt: m[1] } }], { text: 'Delegating.' });
  if ((m = /^story (\d+)/.exec(prompt))) {
    const words = storyWords(Number(m[1]));
    return reply.text(words.join(''), { chunks: words, frameDelayMs: delayMs });
  }
  return reply.text(`ok: ${prompt}`, { frameDelayMs: delayMs });
}

/** The words `story K` streams, each with its trailing space. */
export function storyWords(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `w${i + 1} `);
}

/** A CLI process and what it printed. */
export type CliProcess = { child: ChildProcess; exited: Promise<number | null>; output: () => string };

/** Every process the tests started, so none outlives its file (see `killAll`). */
const started: ChildProcess[] = [];
/** What each started process printed so far, in start order, for `reportChildrenOnFailure`. */
const transcripts: { args: string[]; child: ChildProcess; output: () => string }[] = [];

/** Starts `indusagi <args>` (as `cliArgv` runs it); resolves with the first match of `ready` in its output. */
export function startCli(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<CliProcess & { match: RegExpExecArray }> {
  const child = spawn(process.execPath, cliArgv(args), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(child);
  let output = '';
  transcripts.push({ args, child, output: () => output });
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match !== null) resolve({ child, exited, output: () => output, match });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      reject(new Error(`indusagi ${args[0]} exited (${code}) before it was ready:\n${output}`));
      // A process the tests did not kill that ends in failure after it was ready: what it printed is the
      // only account of why (a test then sees just a closed socket), so it goes to the test's stderr.
      if (code !== null && code !== 0) console.error(`indusagi ${args.join(' ')} exited with ${code}:\n${output}`);
    });
  });
}

/** Environment for a CLI process: the scripted model, no other keys. */
export function modelEnv(model: AnthropicTestServer, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.baseURL, ...extra };
  delete env.OPENAI_API_KEY;
  delete env.INDUSAGI_DATABASE_URL;
  return env;
}

/**
 * An `afterEach` hook: when the test failed (a timeout included), print what every process it started
 * printed. A hung wait otherwise gives no account of itself: the processes are still alive, so the
 * exit handler in `startCli` never fires.
 */
export function reportChildrenOnFailure(context: { task: { result?: { state?: string } } }): void {
  if (context.task.result?.state !== 'fail') return;
  // Every process of the file, not only the test's own: a server started in beforeAll is often the one that hung.
  for (const each of transcripts) {
    const state = each.child.exitCode ?? each.child.signalCode ?? 'still running';
    console.error(`indusagi ${each.args.join(' ')} (${state}) printed:\n${each.output()}`);
  }
}

export function killAll(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Where `indusagi serve --database` and `indusagi worker` processes meet: one schema of one database, one scripted model. */
export type SharedDatabase = { database: string; schema: string; model: AnthropicTestServer };

/** `indusagi serve --database` taking the tokens in `tokensFile`; resolves with its URL once it listens. */
export async function serveOnDatabase(shared: SharedDatabase, tokensFile: string): Promise<string> {
  const args = ['serve', '--database', shared.database, '--schema', shared.schema, '--tokens', tokensFile, '--port', '0'];
  return (await startCli(args, modelEnv(shared.model), /indusagi server on (\S+)/)).match[1];
}

/** `indusagi worker` running the fixture agent, its ledger at `ledger`; resolves with the process and its worker id once it is up. */
export async function startDatabaseWorker(
  shared: SharedDatabase,
  ledger: string,
  extraArgs: string[],
): Promise<{ child: ChildProcess; id: string }> {
  const args = ['worker', '--database', shared.database, '--schema', shared.schema, '--agent', FIXTURE_AGENT, ...extraArgs];
  const started = await startCli(args, modelEnv(shared.model, { INDUSAGI_TEST_LEDGER: ledger }), /indusagi worker (.+) \(model/);
  return { child: started.child, id: started.match[1] };
}

/** Requests to one server as one principal. */
export class Client {
  constructor(
    readonly url: string,
    readonly token: string,
    /** Over the network by default; a server's own `fetch` handler to call it in process. */
    private readonly send: (request: Request) => Promise<Response> = (request) => fetch(request),
  ) {}

  get(path: string, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
    return this.send(new Request(this.url + path, { headers: { authorization: `Bearer ${this.token}`, ...headers }, signal }));
  }

  request(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    return this.send(
      new Request(this.url + path, { method, headers: { authorization: `Bearer ${this.token}`, ...init.headers }, body: init.body }),
    );
  }

  post(path: string, body?: unknown): Promise<Response> {
    return this.send(
      new Request(this.url + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  }

  /** POSTs and returns the JSON answer, failing on any status but `expected`. */
  async json<T = any>(path: string, body?: unknown, expected = 200): Promise<T> {
    const response = await this.post(path, body);
    const text = await response.text();
    if (response.status !== expected) throw new Error(`POST ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async read<T = any>(path: string): Promise<T> {
    const response = await this.get(path);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }
}

export type SseEvent = { id: number | undefined; data: any };

/**
 * Reads an SSE body event by event. `next()` resolves with the next event (comments skipped) or
 * undefined at the end of the stream.
 */
export function sseReader(response: Response): { next(): Promise<SseEvent | undefined>; cancel(): Promise<void> } {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  return {
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const raw = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let id: number | undefined;
          const data: string[] = [];
          for (const line of raw.split('\n')) {
            if (line.startsWith('id: ')) id = Number(line.slice(4));
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length === 0) continue;
          const text = data.join('\n');
          return { id, data: text === '[DONE]' ? '[DONE]' : JSON.parse(text) };
        }
        const { value, done } = await reader.read();
        if (done) return undefined;
        buffer += value;
      }
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

/** Every event of an SSE body, to its end. */
export async function allEvents(response: Response): Promise<SseEvent[]> {
  const reader = sseReader(response);
  const out: SseEvent[] = [];
  for (let event = await reader.next(); event !== undefined; event = await reader.next()) out.push(event);
  return out;
}

/** Reads a run's stream until an event `matches`; the stream is left open for more reads. */
export async function waitForEvent(reader: ReturnType<typeof sseReader>, matches: (event: SseEvent) => boolean): Promise<SseEvent> {
  for (;;) {
    const event = await reader.next();
    if (event === undefined) throw new Error('the stream ended before the awaited event');
    if (matches(event)) return event;
  }
}

/**
 * Resolves once the fixture agent's ledger file holds `line`. `tool_started` is published before the
 * tool's body runs, so a test that kills or cancels "mid-tool" first waits for the tool's own write
 * (the test's timeout bounds the wait).
 */
export async function untilLedgerHas(path: string, line: string): Promise<void> {
  for (;;) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.split('\n').includes(line)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
