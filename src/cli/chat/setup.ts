import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import { SessionStore } from '../../runtime/store/index.js';
import type { ChatCommand } from '../args.js';
import { describeMemoryReport, openMemoryFile } from '../memory-file.js';
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
};

/** Reads the memory file and opens the workspace before the model starts; `model.close()` lets go of it. */
export async function setUpChat(command: ChatCommand, env: NodeJS.ProcessEnv, cwd: string): Promise<ChatSetup> {
  const store = new SessionStore(command.locations.store);
  const memory = await openMemoryFile(command.locations.memory);
  const workspace = await Workspace.open(cwd);
  const model = await chooseModel(env, command.model);
  const config = chatConfig(model, workspace, memory);
  return {
    store,
    model,
    memoryNotes: describeMemoryReport(command.locations.memory, memory.report),
    makeAgent: (sessionId) => createAgent({ ...config, sessionId }, { store, invokeModel: model.invokeModel }),
  };
}
