import { mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MemoryStore } from '../../memory/index.js';
import type { AgentContext, AgentFactory, ServerAgent } from '../../server/index.js';
import { tenantFolder } from '../../server/backend/local/files.js';
import { chatConfig } from '../chat/config.js';
import { CliUsageError } from '../errors.js';
import type { ModelChoice } from '../model.js';
import { Workspace } from '../tools/index.js';
import { ToolError } from '../../runtime/tools/index.js';

/** The model the command chose (from `--model` and the environment), as an `--agent` module sees it. */
export type CommandModel = Pick<ModelChoice, 'invokeModel' | 'model' | 'contextWindow' | 'maxOutputTokens' | 'offline'>;

/**
 * What an `--agent` module default-exports: the agent of each run, given the run's context and the
 * model the command chose (use it, or bring your own invoker).
 */
export type ServeAgentFactory = (context: AgentContext & { model: CommandModel }) => ServerAgent | Promise<ServerAgent>;

/**
 * The agent each run gets: the `--agent` module's, or the built-in one: the chat's file tools confined
 * to a workspace folder per tenant (each write or edit waiting for approval), the clock and memory per
 * user, and no `bash`. A shell on the host would reach every tenant's data, the server's data folder
 * and the tokens file whatever folder it starts in; an operator who wants one gives it in `--agent`.
 *
 * `keepOut` are the paths the workspace must not hold (the data folder, the tokens file): a tenant
 * whose folder held them, or lay inside the data folder, would reach them through its file tools.
 */
export async function agentFactory(
  modulePath: string | undefined,
  model: CommandModel,
  workspaceRoot: string,
  keepOut: { data?: string; tokens?: string } = {},
): Promise<AgentFactory> {
  if (modulePath !== undefined) {
    let loaded: { default?: unknown };
    try {
      loaded = (await import(pathToFileURL(modulePath).href)) as { default?: unknown };
    } catch (error) {
      throw new CliUsageError(`--agent ${modulePath} could not be loaded: ${(error as Error).message}`);
    }
    if (typeof loaded.default !== 'function')
      throw new CliUsageError(`--agent ${modulePath} must default-export a function from a run's context to { config, invokeModel }`);
    const factory = loaded.default as ServeAgentFactory;
    return (context) => factory({ ...context, model });
  }
  await refuseOverlap(workspaceRoot, keepOut);
  const workspaces = new Map<string, Promise<Workspace>>();
  const workspaceOf = (tenant: string): Promise<Workspace> => {
    let opened = workspaces.get(tenant);
    if (opened === undefined) {
      const root = join(workspaceRoot, tenantFolder(tenant));
      opened = mkdir(root, { recursive: true }).then(() => Workspace.open(root));
      workspaces.set(tenant, opened);
      opened.catch(() => workspaces.delete(tenant));
    }
    return opened;
  };
  // One served agent per tenant and user, the same object on every run: the server defines it once (its
  // tools compiled once) and each run only opens a conversation of it. The most recent ones are kept.
  const served = new Map<string, { memory: MemoryStore | undefined; agent: Promise<ServerAgent> }>();
  return (context) => {
    const key = `${context.tenant}\u0000${context.user}`;
    const kept = served.get(key);
    if (kept !== undefined && kept.memory === context.memory) {
      served.delete(key);
      served.set(key, kept);
      return kept.agent;
    }
    const agent = workspaceOf(context.tenant).then((workspace) => {
      const config = chatConfig(model, workspace, userMemory(context.memory, context.user), { bash: false });
      return { config: { ...config, system: SYSTEM }, invokeModel: model.invokeModel };
    });
    served.set(key, { memory: context.memory, agent });
    agent.catch(() => served.delete(key));
    if (served.size > SERVED_AGENTS_KEPT) served.delete(served.keys().next().value!);
    return agent;
  };
}

/** How many tenant-and-user agents the built-in factory keeps defined. */
const SERVED_AGENTS_KEPT = 256;

const SYSTEM = [
  'You are an assistant served by the indusagi agent server.',
  "Your tools can list, read, write and edit files in the user's workspace folder and nowhere else (each write or edit waits for the user's approval), tell the current time, and remember or recall facts across conversations. You cannot run commands.",
  'Use them when they help; keep answers short.',
].join(' ');

/**
 * Refuses a workspace that holds the data folder or the tokens file, or lies inside the data folder,
 * compared by real paths (symlinks resolved on the deepest part that exists), so that no tenant's
 * workspace can be one of them by a tenant name or a link.
 */
async function refuseOverlap(workspaceRoot: string, keepOut: { data?: string; tokens?: string }): Promise<void> {
  const root = await realPathSoFar(workspaceRoot);
  const inside = (path: string, folder: string) => {
    const rel = relative(folder, path);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  };
  for (const [flag, path] of [
    ['--data', keepOut.data],
    ['--tokens', keepOut.tokens],
  ] as const) {
    if (path === undefined) continue;
    const real = await realPathSoFar(path);
    if (inside(real, root))
      throw new CliUsageError(
        `${flag} ${path} lies inside --workspace ${workspaceRoot}: every tenant's file tools would reach it; keep them apart`,
      );
    if (flag === '--data' && inside(root, real))
      throw new CliUsageError(
        `--workspace ${workspaceRoot} lies inside --data ${path}: tenants' file tools would reach the server's data; keep them apart`,
      );
  }
}

/** The real path of `path`: the deepest part of it that exists resolved (symlinks and all), the rest appended. */
async function realPathSoFar(path: string): Promise<string> {
  const absolute = resolve(path);
  const missing: string[] = [];
  for (let at = absolute; ; at = dirname(at)) {
    try {
      return join(await realpath(at), ...missing.reverse());
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw error;
      missing.push(basename(at));
    }
  }
}

/** Memory as one user's: what the tools save belongs to them, and searches see theirs and the shared records. */
function userMemory(store: MemoryStore | undefined, user: string): MemoryStore {
  if (store === undefined) {
    const none = async (): Promise<never> => {
      throw new ToolError('This server keeps no memory.');
    };
    return { save: none, search: async () => [], forget: none };
  }
  const scope = { resource: user };
  return {
    save: (text, opts) => store.save(text, { ...opts, scope }),
    search: (query, opts) => store.search(query, { ...opts, scope }),
    forget: (id) => store.forget(id, { scope }),
  };
}
