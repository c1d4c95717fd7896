import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import { SessionStore } from '../../runtime/store/index.js';
import type { ChatCommand } from '../args.js';
import { openMemory } from '../memory/index.js';
import { chooseModel, type ModelChoice } from '../model.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';

/** What a chat and a `-p` run both stand on: the store, the model, and agents over them. */
export type ChatSetup = {
  store: SessionStore;
  model: ModelChoice;
  /** Notes about the memory file (lines it could not read), for the user. */
  memoryNotes: string[];
  makeAgent(sessionId: string): Agent;
  /** Lets go of the model (its demo server) and the memory store (a database pool). */
  close(): Promise<void>;
};

/** Opens the memory (a file or a PostgreSQL URL) and the workspace before the model starts; `close()` lets go of both. */
export async function setUpChat(command: ChatCommand, env: NodeJS.ProcessEnv, cwd: string): Promise<ChatSetup> {
  const store = new SessionStore(command.locations.store);
  const memory = await openMemory(command.locations.memory);
  let model: ModelChoice;
  let workspace: Workspace;
  try {
    workspace = await Workspace.open(cwd);
    model = await chooseModel(env, command.model);
  } catch (error) {
    await memory.close();
    throw error;
  }
  const config = chatConfig(model, workspace, memory.store);
  return {
    store,
    model,
    memoryNotes: memory.notes,
    makeAgent: (sessionId) => createAgent({ ...config, sessionId }, { store, invokeModel: model.invokeModel }),
    close: async () => {
      await Promise.all([model.close(), memory.close()]);
    },
  };
}
