import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import type { ChatCommand } from '../args.js';
import { openMemory } from '../memory/index.js';
import { openSessionStore, type CliSessionStore } from '../session-store.js';
import { chooseModel, type ModelChoice } from '../model.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';

/** What a chat and a `-p` run both stand on: the store, the model, and agents over them. */
export type ChatSetup = {
  store: CliSessionStore;
  model: ModelChoice;
  /** Notes about the memory file (lines it could not read), for the user. */
  memoryNotes: string[];
  makeAgent(sessionId: string): Agent;
  /** Lets go of the model (its demo server), the memory store and the session store (database pools). */
  close(): Promise<void>;
};

/** Opens the memory (a file or a PostgreSQL URL) and the workspace before the model starts; `close()` lets go of both. */
export async function setUpChat(command: ChatCommand, env: NodeJS.ProcessEnv, cwd: string): Promise<ChatSetup> {
  const store = openSessionStore(command.locations.store);
  let memory: Awaited<ReturnType<typeof openMemory>>;
  try {
    memory = await openMemory(command.locations.memory);
  } catch (error) {
    await store.close();
    throw error;
  }
  let model: ModelChoice;
  let workspace: Workspace;
  try {
    workspace = await Workspace.open(cwd);
    model = await chooseModel(env, command.model);
  } catch (error) {
    await Promise.all([memory.close(), store.close()]);
    throw error;
  }
  const config = chatConfig(model, workspace, memory.store);
  return {
    store,
    model,
    memoryNotes: memory.notes,
    makeAgent: (sessionId) => createAgent({ ...config, sessionId }, { store, invokeModel: model.invokeModel }),
    close: async () => {
      await Promise.all([model.close(), memory.close(), store.close()]);
    },
  };
}
