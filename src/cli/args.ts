import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { CliUsageError } from './errors.js';
import { parseModelFlag, type ModelFlag } from './model-flag.js';

export type Locations = { store: string; memory: string };

export type Command =
  | { name: 'help' }
  | { name: 'version' }
  | { name: 'chat'; session?: string; model?: ModelFlag; locations: Locations }
  | { name: 'sessions'; action: 'ls'; locations: Locations }
  | { name: 'sessions'; action: 'show' | 'tree'; id: string; locations: Locations }
  | { name: 'sessions'; action: 'export'; id: string; format: 'md' | 'json'; locations: Locations };

export const DEFAULT_STORE = '.indusagi/sessions';
export const DEFAULT_MEMORY = '.indusagi/memory.jsonl';

const COMMON = {
  store: { type: 'string' },
  memory: { type: 'string' },
} as const;

/** Reads the command line; anything it does not know is a `CliUsageError`, decided before any file is touched. */
export function parseCommand(argv: string[], cwd: string): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === 'help' || first === '--help' || first === '-h') return { name: 'help' };
  if (first === '--version' || first === '-v') return { name: 'version' };
  if (first === 'chat') {
    const { values } = parse(rest, { ...COMMON, session: { type: 'string' }, model: { type: 'string' } }, 0, 'chat');
    return {
      name: 'chat',
      session: nonEmpty(values.session, '--session'),
      model: values.model === undefined ? undefined : parseModelFlag(nonEmpty(values.model, '--model')!),
      locations: locations(values, cwd),
    };
  }
  if (first === 'sessions') return parseSessions(rest, cwd);
  throw new CliUsageError(`unknown command "${first}"; try "indusagi help"`);
}

function parseSessions(argv: string[], cwd: string): Command {
  const [action, ...rest] = argv;
  switch (action) {
    case 'ls': {
      const { values } = parse(rest, COMMON, 0, 'sessions ls');
      return { name: 'sessions', action, locations: locations(values, cwd) };
    }
    case 'show':
    case 'tree': {
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
      throw new CliUsageError('sessions needs an action: ls, show ID, tree ID or export ID');
    default:
      throw new CliUsageError(`unknown sessions action "${action}"; use ls, show, tree or export`);
  }
}

type Options = Record<string, { type: 'string' }>;

function parse<T extends Options>(args: string[], options: T, positionalCount: number, usage: string) {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs explains itself well but at length; the first sentence is the useful line.
    throw new CliUsageError(`${usage}: ${String((error as Error).message).split('. ')[0]}`);
  }
  const { positionals } = parsed;
  if (positionals.length < positionalCount) throw new CliUsageError(`${usage} needs a session id`);
  if (positionals.length > positionalCount) throw new CliUsageError(`${usage}: unexpected argument "${positionals[positionalCount]}"`);
  if (positionals.some((p) => p === '')) throw new CliUsageError(`${usage}: the session id is empty`);
  return { values: parsed.values as { [K in keyof T]?: string }, positionals };
}

function locations(values: { store?: string; memory?: string }, cwd: string): Locations {
  return {
    store: resolve(cwd, nonEmpty(values.store, '--store') ?? DEFAULT_STORE),
    memory: resolve(cwd, nonEmpty(values.memory, '--memory') ?? DEFAULT_MEMORY),
  };
}

function nonEmpty(value: string | undefined, flag: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new CliUsageError(`${flag} needs a value`);
  return value;
}
