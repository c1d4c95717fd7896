import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { CliUsageError } from '../errors.js';
import { parseModelFlag, type ModelFlag } from '../model-flag.js';
import { parseEmbedderFlag, type EmbedderFlag } from '../embedder-flag.js';

/** What `indusagi serve` and `indusagi worker` share. */
type Served = {
  database: string | undefined;
  schema: string | undefined;
  /** A module whose default export builds each run's agent; the built-in agent without it. */
  agent: string | undefined;
  model: ModelFlag | undefined;
  /** Where the built-in agent's file tools work (a folder per tenant inside it). */
  workspace: string;
  concurrency: number | undefined;
  leaseMs: number | undefined;
};

export type ServeCommand = Served & {
  name: 'serve';
  port: number;
  host: string;
  /** One machine: threads, runs, events and sessions. */
  data: string;
  /** A JSON file of `[{ token, tenant, user, readOnly? }]`. */
  tokens: string | undefined;
  /** With a database: execute runs in this process too. */
  worker: boolean;
  /** `--embedder` (or INDUSAGI_EMBEDDER): how each tenant's memory file recalls; default `auto`. */
  embedder?: EmbedderFlag;
};

export type WorkerCommand = Served & { name: 'worker' };

export const DEFAULT_DATA = '.indusagi/server';
export const DEFAULT_PORT = 3000;

const COMMON = {
  database: { type: 'string' },
  schema: { type: 'string' },
  agent: { type: 'string' },
  model: { type: 'string' },
  workspace: { type: 'string' },
  concurrency: { type: 'string' },
  'lease-ms': { type: 'string' },
} as const;

const SERVE = {
  ...COMMON,
  port: { type: 'string' },
  host: { type: 'string' },
  data: { type: 'string' },
  tokens: { type: 'string' },
  worker: { type: 'boolean' },
  embedder: { type: 'string' },
} as const;

/** `indusagi serve ...` / `indusagi worker ...`; `env` gives PORT and INDUSAGI_DATABASE_URL when the flags do not. */
export function parseServe(name: 'serve' | 'worker', argv: string[], cwd: string, env: NodeJS.ProcessEnv): ServeCommand | WorkerCommand {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options: name === 'serve' ? SERVE : COMMON, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new CliUsageError(`${name}: ${String((error as Error).message).split('. ')[0]}`);
  }
  const text = (flag: string): string | undefined => {
    const value = values[flag];
    if (typeof value === 'string' && value.trim() === '') throw new CliUsageError(`--${flag} needs a value`);
    return value as string | undefined;
  };
  const database = text('database') ?? (env.INDUSAGI_DATABASE_URL || undefined);
  if (database !== undefined && !/^postgres(ql)?:\/\//i.test(database))
    throw new CliUsageError(`--database must be a postgres:// URL, not ${JSON.stringify(database)}`);
  const served: Served = {
    database,
    schema: text('schema'),
    agent: text('agent') === undefined ? undefined : resolve(cwd, text('agent')!),
    model: text('model') === undefined ? undefined : parseModelFlag(text('model')!),
    workspace: resolve(cwd, text('workspace') ?? '.indusagi/workspace'),
    concurrency: whole(text('concurrency'), '--concurrency', 1),
    leaseMs: whole(text('lease-ms'), '--lease-ms', 100),
  };
  if (name === 'worker') {
    if (database === undefined)
      throw new CliUsageError('worker needs --database postgres://… (or INDUSAGI_DATABASE_URL): workers take runs from the database');
    return { name, ...served };
  }
  const worker = values.worker === true;
  if (text('embedder') !== undefined && database !== undefined)
    throw new CliUsageError("--embedder goes with --data: with --database the memory is the database's");
  if (worker && database === undefined)
    throw new CliUsageError('--worker goes with --database: on one machine the server always executes its runs');
  return {
    name,
    ...served,
    port: whole(text('port') ?? (env.PORT || undefined), '--port (or PORT)', 0) ?? DEFAULT_PORT,
    host: text('host') ?? '127.0.0.1',
    data: resolve(cwd, text('data') ?? DEFAULT_DATA),
    tokens: text('tokens') === undefined ? undefined : resolve(cwd, text('tokens')!),
    worker,
    embedder: parseEmbedderFlag(text('embedder'), env),
  };
}

function whole(raw: string | undefined, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min)
    throw new CliUsageError(`${flag} must be a whole number of at least ${min}, not ${JSON.stringify(raw)}`);
  return value;
}
