// `indusagi serve` and `indusagi worker`: the agent server and its workers as commands (docs/server.md).
import { join } from 'node:path';
import type { Embedder, GovernedMemoryStore, MemoryStore } from '../../memory/index.js';
import { bearerTokens, createServer, createWorker } from '../../server/index.js';
import { tenantFolder } from '../../server/backend/local/files.js';
import { EXIT } from '../exit-codes.js';
import { openMemoryFile } from '../memory-file.js';
import { chooseEmbedding } from '../memory/index.js';
import { chooseModel } from '../model.js';
import type { Io } from '../run.js';
import { agentFactory } from './agent.js';
import type { ServeCommand, WorkerCommand } from './args.js';
import { serveTokens } from './tokens.js';

export type { ServeCommand, WorkerCommand } from './args.js';
export { parseServe } from './args.js';

/** How long a stop waits for runs under way before leaving them to be taken over. */
const DRAIN_MS = 30_000;

/** Serves until SIGINT or SIGTERM, then drains and exits 0. */
export async function runServe(command: ServeCommand, io: Io): Promise<number> {
  const { tokens, generated } = await serveTokens(command.tokens, io.env, command.database !== undefined);
  const authenticate = bearerTokens(tokens);
  // Each tenant's memory file recalls with the same embedder (one model in the process), words only without one.
  const embedding = command.database === undefined ? chooseEmbedding(command.embedder ?? 'auto', 'file') : undefined;
  const model = await chooseModel(io.env, command.model);
  try {
    const agent = await agentFactory(command.agent, model, command.workspace, {
      data: command.database === undefined ? command.data : undefined,
      tokens: command.tokens,
    });
    const shared = command.database !== undefined;
    const server = await createServer({
      authenticate,
      agent,
      ...(shared ? { database: command.database } : { dataDir: command.data, memory: fileMemory(command.data, embedding?.embedder) }),
      // Shared: `indusagi worker` processes execute the runs, unless --worker asks this one to as well.
      worker: shared && !command.worker ? false : { concurrency: command.concurrency },
      schema: command.schema,
      leaseMs: command.leaseMs,
    });
    const { url } = await server.listen({ port: command.port, hostname: command.host });
    const where = shared
      ? `shared, on the database${command.worker ? ', executing runs too' : ''}`
      : `one machine, data in ${command.data}`;
    io.stdout.write(`indusagi server on ${url} (${where}; model: ${model.describe})\n`);
    if (generated !== undefined) io.stdout.write(`token (tenant "default"): ${generated}\n`);
    if (embedding !== undefined) io.stdout.write(`memory recall: ${embedding.status}\n`);
    await stopSignal();
    await server.close(DRAIN_MS);
    return EXIT.ok;
  } finally {
    await model.close();
  }
}

/** Executes runs until SIGINT or SIGTERM, then drains and exits 0. */
export async function runWorker(command: WorkerCommand, io: Io): Promise<number> {
  const model = await chooseModel(io.env, command.model);
  try {
    const worker = await createWorker({
      database: command.database!,
      agent: await agentFactory(command.agent, model, command.workspace),
      schema: command.schema,
      concurrency: command.concurrency,
      leaseMs: command.leaseMs,
    });
    io.stdout.write(`indusagi worker ${worker.workerId} (model: ${model.describe})\n`);
    await stopSignal();
    await worker.stop(DRAIN_MS);
    return EXIT.ok;
  } finally {
    await model.close();
  }
}

function stopSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/** On one machine, each tenant's memory is a file beside its sessions (opened on first use). */
function fileMemory(data: string, embedder: Embedder | undefined): (tenant: string) => MemoryStore {
  const opened = new Map<string, MemoryStore>();
  return (tenant) => {
    let store = opened.get(tenant);
    if (store === undefined) {
      const file = openMemoryFile(join(data, 'tenants', tenantFolder(tenant), 'memory.jsonl'), { embedder });
      // A file that cannot be read fails each call that uses it, not the process.
      file.catch(() => undefined);
      const use = async <T>(work: (memory: GovernedMemoryStore) => Promise<T>): Promise<T> => work(await file);
      store = {
        save: (text, opts) => use((m) => m.save(text, opts)),
        search: (query, opts) => use((m) => m.search(query, opts)),
        forget: (id, opts) => use((m) => m.forget(id, opts)),
        all: () => use((m) => m.all()),
        get: (id, opts) => use((m) => m.get(id, opts)),
        list: (opts) => use((m) => m.list(opts)),
        update: (id, edit, opts) => use((m) => m.update(id, edit, opts)),
      } satisfies GovernedMemoryStore;
      opened.set(tenant, store);
    }
    return store;
  };
}
