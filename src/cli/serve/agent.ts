import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MemoryStore } from '../../memory/index.js';
import type { AgentContext, AgentFactory, ServedAgent } from '../../server/index.js';
import { tenantFolder } from '../../server/backend/local/files.js';
import { chatConfig } from '../chat/config.js';
import { CliUsageError } from '../errors.js';
import type { ModelChoice } from '../model.js';
import { Workspace } from '../tools/index.js';
import { ToolError } from '../../tools/index.js';

/** The model the command chose (from `--model` and the environment), as an `--agent` module sees it. */
export type CommandModel = Pick<ModelChoice, 'invokeModel' | 'model' | 'contextWindow' | 'maxOutputTokens' | 'offline'>;

/**
 * What an `--agent` module default-exports: the agent of each run, given the run's context and the
 * model the command chose (use it, or bring your own invoker).
 */
export type ServeAgentFactory = (context: AgentContext & { model: CommandModel }) => ServedAgent | Promise<ServedAgent>;

/**
 * The agent each run gets: the `--agent` module's, or the built-in one (the chat's tools: files in a
 * workspace folder per tenant, each write waiting for approval; the clock; memory, per user).
 */
export async function agentFactory(modulePath: string | undefined, model: CommandModel, workspaceRoot: string): Promise<AgentFactory> {
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
  return async (context) => {
    const workspace = await workspaceOf(context.tenant);
    const config = chatConfig(model, workspace, userMemory(context.memory, context.user));
    return { config: { ...config, system: SYSTEM }, invokeModel: model.invokeModel };
  };
}

const SYSTEM = [
  'You are an assistant served by the indusagi agent server.',
  "Your tools can list, read and write files in the user's workspace folder (each write waits for the user's approval), tell the current time, and remember or recall facts across conversations.",
  'Use them when they help; keep answers short.',
].join(' ');

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
