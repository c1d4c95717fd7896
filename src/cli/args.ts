import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { CliUsageError } from './errors.js';
import { parseModelFlag, type ModelFlag } from './model-flag.js';
import { parseServe, type ServeCommand, type WorkerCommand } from './serve/args.js';
import { parseEmbedderFlag, type EmbedderFlag } from './embedder-flag.js';

export type Locations = { store: string; memory: string };

/**
 * Which session a chat (or a `-p` run) works on: a fresh one with a generated id, the one `--session`
 * names (made if it does not exist yet), or the most recently changed one (`--continue`).
 */
export type SessionChoice = { kind: 'new' } | { kind: 'named'; id: string } | { kind: 'latest' };

export type ChatCommand = {
  name: 'chat';
  session: SessionChoice;
  model?: ModelFlag;
  /** `-p PROMPT`: run this one prompt, print the answer and exit ("-" reads the prompt from stdin). */
  print?: string;
  /** `--json` (with `-p`): every run event as one JSON line on stdout instead of the answer. */
  json: boolean;
  /** `--mcp FILE` (repeatable): files of MCP servers (the `mcpServers` format) whose tools the chat gets. */
  mcp: string[];
  /** `--force` (with `-p`): append even when the session's live leaf fell back to an older node on load. */
  force: boolean;
  locations: Locations;
  /** `--embedder` (or INDUSAGI_EMBEDDER): how the memory recalls; `auto` by default. */
  embedder: EmbedderFlag;
};

/** `indusagi eval FILE` (see cli/eval). */
export type EvalCommand = {
  name: 'eval';
  /** The module, resolved. */
  file: string;
  model?: ModelFlag;
  record?: string;
  replay?: string;
  concurrency?: number;
  json: boolean;
  html?: string;
  baseline?: string;
  /** The journal that makes the evaluation resumable: a second run with it goes on where the first stopped. */
  journal?: string;
  store: string;
};

export type Command =
  | { name: 'help'; topic: string[] }
  | { name: 'version' }
  | ChatCommand
  | { name: 'sessions'; action: 'ls'; locations: Locations }
  | { name: 'sessions'; action: 'show' | 'tree' | 'rm'; id: string; locations: Locations }
  | { name: 'sessions'; action: 'export'; id: string; format: 'md' | 'json'; locations: Locations }
  | { name: 'memory'; action: 'ls'; all: boolean; owner: MemoryOwner; memory: string }
  | { name: 'memory'; action: 'rm'; id: string; owner: MemoryOwner; memory: string }
  | { name: 'memory'; action: 'edit'; id: string; text: string; owner: MemoryOwner; memory: string }
  | { name: 'db'; action: 'migrate'; database: string | undefined; schema: string | undefined }
  | {
      name: 'mcp';
      action: 'serve';
      port?: number;
      host?: string;
      memory: string;
      embedder: EmbedderFlag;
      /** `--allow-bash`: serve the shell tool too (it runs any command the client's user allows). */
      allowBash: boolean;
      /** `--token-file FILE`: the HTTP transport's bearer token is read from it, instead of made up at start. */
      tokenFile?: string;
    }
  | TrustCommand
  | ServeCommand
  | WorkerCommand
  | EvalCommand;

/** `indusagi trust [DIR] [--revoke | --list]`: record that the user trusts (or no longer trusts) a workspace. */
export type TrustCommand = { name: 'trust'; action: 'grant' | 'revoke' | 'list'; dir: string };

/** `--resource` and `--session` of the memory commands: the owner whose records they touch. */
export type MemoryOwner = { resource?: string; session?: string };

export const DEFAULT_STORE = '.indusagi/sessions';
export const DEFAULT_MEMORY = '.indusagi/memory.jsonl';

const COMMON = {
  store: { type: 'string' },
  memory: { type: 'string' },
} as const;

const CHAT_OPTIONS = {
  ...COMMON,
  session: { type: 'string' },
  model: { type: 'string' },
  print: { type: 'string', short: 'p' },
  json: { type: 'boolean' },
  force: { type: 'boolean' },
  continue: { type: 'boolean', short: 'c' },
  mcp: { type: 'string', multiple: true },
  embedder: { type: 'string' },
} as const;

/** Reads the command line; anything it does not know is a `CliUsageError`, decided before any file is touched. */
export function parseCommand(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') return { name: 'help', topic: [] };
  if (first === 'help') return { name: 'help', topic: rest };
  if (first === '--version' || first === '-v') return { name: 'version' };
  // `indusagi chat --help`, `indusagi sessions ls -h`: the help of the command named before the flag.
  const helpAt = argv.findIndex((arg) => arg === '--help' || arg === '-h' || arg === '--');
  if (helpAt >= 0 && argv[helpAt] !== '--') {
    return {
      name: 'help',
      topic: first.startsWith('-')
        ? ['chat']
        : argv
            .slice(0, helpAt)
            .filter((arg) => !arg.startsWith('-'))
            .slice(0, 2),
    };
  }
  if (first === 'chat') return parseChat(rest, cwd, 'chat', env);
  // `indusagi -p "prompt"`, `indusagi --continue`: flags alone are the chat's, reported without a
  // command name (the line already starts "indusagi:").
  if (first.startsWith('-')) return parseChat(argv, cwd, '', env);
  if (first === 'sessions') return parseSessions(rest, cwd);
  if (first === 'memory') return parseMemory(rest, cwd);
  if (first === 'db') return parseDb(rest);
  if (first === 'mcp') return parseMcp(rest, cwd, env);
  if (first === 'trust') return parseTrust(rest, cwd);
  if (first === 'serve' || first === 'worker') return parseServe(first, rest, cwd, env);
  if (first === 'eval') return parseEval(rest, cwd);
  throw new CliUsageError(`unknown command "${first}"; try "indusagi help"`);
}

function parseChat(argv: string[], cwd: string, usage: string, env: NodeJS.ProcessEnv): ChatCommand {
  const { values } = parse(argv, CHAT_OPTIONS, 0, usage);
  const named = nonEmpty(values.session, '--session');
  if (named !== undefined && values.continue === true) throw new CliUsageError('--session and --continue both pick the session; give one');
  if (values.json === true && values.print === undefined)
    throw new CliUsageError('--json goes with -p PROMPT (a chat on a terminal prints for people)');
  if (values.force === true && values.print === undefined)
    throw new CliUsageError('--force goes with -p PROMPT (a chat shows what a load left out and lets you /fork)');
  return {
    name: 'chat',
    session: named !== undefined ? { kind: 'named', id: named } : values.continue === true ? { kind: 'latest' } : { kind: 'new' },
    model: values.model === undefined ? undefined : parseModelFlag(nonEmpty(values.model, '--model')!),
    print: nonEmpty(values.print, '-p'),
    json: values.json === true,
    mcp: (values.mcp ?? []).map((file) => resolve(cwd, nonEmpty(file, '--mcp')!)),
    force: values.force === true,
    locations: locations(values, cwd),
    embedder: parseEmbedderFlag(nonEmpty(values.embedder, '--embedder'), env),
  };
}

function parseSessions(argv: string[], cwd: string): Command {
  const [action, ...rest] = argv;
  switch (action) {
    case 'ls': {
      const { values } = parse(rest, COMMON, 0, 'sessions ls');
      return { name: 'sessions', action, locations: locations(values, cwd) };
    }
    case 'show':
    case 'tree':
    case 'rm': {
      const { values, positionals } = parse(rest, COMMON, 1, `sessions ${action}`);
      return { name: 'sessions', action, id: positionals[0], locations: locations(values, cwd) };
    }
    case 'export': {
      const { values, positionals } = parse(rest, { ...COMMON, format: { type: 'string' } }, 1, 'sessions export');
      const format = values.format ?? 'md';
      if (format !== 'md' && format !== 'json') throw new CliUsageError(`--format must be "md" or "json", not "${format}"`);
      return { name: 'sessions', action, id: positionals[0], format, locations: locations(values, cwd) };
    }
    case undefined:
      throw new CliUsageError('sessions needs an action: ls, show ID, tree ID, export ID or rm ID');
    default:
      throw new CliUsageError(`unknown sessions action "${action}"; use ls, show, tree, export or rm`);
  }
}

const MEMORY_OPTIONS = { memory: { type: 'string' }, resource: { type: 'string' }, session: { type: 'string' } } as const;

function parseMemory(argv: string[], cwd: string): Command {
  const [action, ...rest] = argv;
  const owner = (values: { resource?: string; session?: string }): MemoryOwner => {
    const out: MemoryOwner = {};
    const resource = nonEmpty(values.resource, '--resource');
    const session = nonEmpty(values.session, '--session');
    if (resource !== undefined) out.resource = resource;
    if (session !== undefined) out.session = session;
    return out;
  };
  switch (action) {
    case 'ls': {
      const { values } = parse(rest, { ...MEMORY_OPTIONS, all: { type: 'boolean' } }, 0, 'memory ls');
      return { name: 'memory', action, all: values.all === true, owner: owner(values), memory: memoryLocation(values.memory, cwd) };
    }
    case 'rm': {
      const { values, positionals } = parse(rest, MEMORY_OPTIONS, 1, 'memory rm', 'a memory id');
      return { name: 'memory', action, id: positionals[0], owner: owner(values), memory: memoryLocation(values.memory, cwd) };
    }
    case 'edit': {
      const { values, positionals } = parse(rest, MEMORY_OPTIONS, 2, 'memory edit', 'a memory id and the new text');
      return {
        name: 'memory',
        action,
        id: positionals[0],
        text: positionals[1],
        owner: owner(values),
        memory: memoryLocation(values.memory, cwd),
      };
    }
    case undefined:
      throw new CliUsageError('memory needs an action: ls, rm ID or edit ID TEXT');
    default:
      throw new CliUsageError(`unknown memory action "${action}"; use ls, rm or edit`);
  }
}

function parseDb(argv: string[]): Command {
  const [action, ...rest] = argv;
  if (action === undefined) throw new CliUsageError('db needs an action: migrate');
  if (action !== 'migrate') throw new CliUsageError(`unknown db action "${action}"; use migrate`);
  const { values } = parse(rest, { database: { type: 'string' }, schema: { type: 'string' } }, 0, 'db migrate');
  return { name: 'db', action, database: nonEmpty(values.database, '--database'), schema: nonEmpty(values.schema, '--schema') };
}

function parseTrust(argv: string[], cwd: string): TrustCommand {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { revoke: { type: 'boolean' }, list: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new CliUsageError(`trust: ${String((error as Error).message).split('. ')[0]}`);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new CliUsageError(`trust: unexpected argument "${positionals[1]}"`);
  if (values.revoke === true && values.list === true) throw new CliUsageError('trust: --revoke and --list do different things; give one');
  if (values.list === true && positionals.length > 0) throw new CliUsageError('trust --list lists every folder; it takes no DIR');
  const dir = positionals[0] ?? '.';
  if (dir.trim() === '') throw new CliUsageError('trust: DIR must not be empty');
  return { name: 'trust', action: values.list === true ? 'list' : values.revoke === true ? 'revoke' : 'grant', dir: resolve(cwd, dir) };
}

function parseMcp(argv: string[], cwd: string, env: NodeJS.ProcessEnv): Command {
  const [action, ...rest] = argv;
  if (action === undefined) throw new CliUsageError('mcp needs an action: serve');
  if (action !== 'serve') throw new CliUsageError(`unknown mcp action "${action}"; use serve`);
  const { values } = parse(
    rest,
    {
      port: { type: 'string' },
      host: { type: 'string' },
      memory: { type: 'string' },
      embedder: { type: 'string' },
      'allow-bash': { type: 'boolean' },
      'token-file': { type: 'string' },
    },
    0,
    'mcp serve',
  );
  const command: Command & { name: 'mcp' } = {
    name: 'mcp',
    action,
    memory: memoryLocation(values.memory, cwd),
    embedder: parseEmbedderFlag(nonEmpty(values.embedder, '--embedder'), env),
    allowBash: values['allow-bash'] === true,
  };
  if (values.port !== undefined) {
    const port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535)
      throw new CliUsageError(`--port must be a port number (0 to 65535), not "${values.port}"`);
    command.port = port;
  }
  const host = nonEmpty(values.host, '--host');
  if (host !== undefined) {
    if (command.port === undefined) throw new CliUsageError('--host goes with --port (without it the server speaks over stdio)');
    command.host = host;
  }
  const tokenFile = nonEmpty(values['token-file'], '--token-file');
  if (tokenFile !== undefined) {
    if (command.port === undefined)
      throw new CliUsageError('--token-file goes with --port (over stdio the client that spawned the server is the only one)');
    command.tokenFile = resolve(cwd, tokenFile);
  }
  return command;
}

const EVAL_OPTIONS = {
  store: { type: 'string' },
  model: { type: 'string' },
  record: { type: 'string' },
  replay: { type: 'string' },
  concurrency: { type: 'string' },
  json: { type: 'boolean' },
  html: { type: 'string' },
  baseline: { type: 'string' },
  journal: { type: 'string' },
} as const;

function parseEval(argv: string[], cwd: string): EvalCommand {
  const { values, positionals } = parse(argv, EVAL_OPTIONS, 1, 'eval', 'the evaluation module FILE');
  const record = nonEmpty(values.record, '--record');
  const replay = nonEmpty(values.replay, '--replay');
  if (record !== undefined && replay !== undefined)
    throw new CliUsageError('eval: --record and --replay cannot go together (a replay makes no model calls to record)');
  let concurrency: number | undefined;
  if (values.concurrency !== undefined) {
    concurrency = Number(values.concurrency);
    if (!/^\d+$/.test(values.concurrency) || concurrency < 1)
      throw new CliUsageError(`--concurrency must be a whole number >= 1, not "${values.concurrency}"`);
  }
  const path = (value: string | undefined, flag: string) => (nonEmpty(value, flag) === undefined ? undefined : resolve(cwd, value!));
  return {
    name: 'eval',
    file: resolve(cwd, positionals[0]),
    model: values.model === undefined ? undefined : parseModelFlag(nonEmpty(values.model, '--model')!),
    record: path(record, '--record'),
    replay: path(replay, '--replay'),
    concurrency,
    json: values.json === true,
    html: path(values.html, '--html'),
    baseline: path(values.baseline, '--baseline'),
    journal: path(values.journal, '--journal'),
    store: storeLocation(values.store, cwd),
  };
}

/** A PostgreSQL URL stays as given; anything else is the sessions folder, relative to `cwd`. */
function storeLocation(value: string | undefined, cwd: string): string {
  const given = nonEmpty(value, '--store') ?? DEFAULT_STORE;
  return isDatabaseUrl(given) ? given : resolve(cwd, given);
}

/** A PostgreSQL URL stays as given; anything else is a memory file path, relative to `cwd`. */
export function memoryLocation(value: string | undefined, cwd: string): string {
  const given = nonEmpty(value, '--memory') ?? DEFAULT_MEMORY;
  return isDatabaseUrl(given) ? given : resolve(cwd, given);
}

export function isDatabaseUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

type Options = Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
type Values<T extends Options> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : T[K]['multiple'] extends true ? string[] : string;
};

/** `usage` names the command in messages (`sessions ls: …`); empty for the bare `indusagi` form. */
function parse<T extends Options>(args: string[], options: T, positionalCount: number, usage: string, needs = 'a session id') {
  const about = (text: string) => new CliUsageError(usage === '' ? text : `${usage}: ${text}`);
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains itself well but at length; the first sentence is the useful line.
    throw about(String((error as Error).message).split('. ')[0]);
  }
  const { positionals } = parsed;
  if (positionals.length < positionalCount) throw new CliUsageError(`${usage} needs ${needs}`);
  if (positionals.length > positionalCount) throw about(`unexpected argument "${positionals[positionalCount]}"`);
  if (positionals.some((p) => p === '')) throw about(`${needs} must not be empty`);
  return { values: parsed.values as Values<T>, positionals };
}

function locations(values: { store?: string; memory?: string }, cwd: string): Locations {
  return {
    store: storeLocation(values.store, cwd),
    memory: memoryLocation(values.memory, cwd),
  };
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new CliUsageError(`${flag} needs a value`);
  return value;
}
