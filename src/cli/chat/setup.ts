import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import { ApprovalRules } from '../approvals.js';
import type { ChatCommand } from '../args.js';
import { openMemory } from '../memory/index.js';
import { openSessionStore, type CliSessionStore } from '../session-store.js';
import { chooseModel, offlineModel, type ModelChoice } from '../model.js';
import type { ModelFlag } from '../model-flag.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';

/** What a chat and a `-p` run both stand on: the store, the model, and agents over them. */
export type ChatSetup = {
  store: CliSessionStore;
  /** The model agents are made with now (`switchModel` changes it). */
  readonly model: ModelChoice;
  workspace: Workspace;
  /** Which waiting calls are approved without asking (the workspace's settings file). */
  rules: ApprovalRules;
  /** Notes about the memory file (lines it could not read), for the user. */
  memoryNotes: string[];
  makeAgent(sessionId: string): Agent;
  /**
   * Agents made from now on use the model `flag` names (null: the offline demo model), as `chooseModel`
   * picks it. Close the agents on the old model first: this lets go of it.
   */
  switchModel(flag: ModelFlag | null): Promise<void>;
  /** Lets go of the model (its demo server), the memory store and the session store (database pools). */
  close(): Promise<void>;
};

/**
 * Opens the memory (a file or a PostgreSQL URL), the workspace and its settings before the model
 * starts; `close()` lets go of all of it.
 */
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
  let rules: ApprovalRules;
  try {
    workspace = await Workspace.open(cwd);
    rules = await ApprovalRules.load(workspace.root);
    model = await chooseModel(env, command.model);
  } catch (error) {
    await Promise.all([memory.close(), store.close()]);
    throw error;
  }
  return {
    store,
    get model() {
      return model;
    },
    workspace,
    rules,
    memoryNotes: memory.notes,
    makeAgent: (sessionId) =>
      createAgent({ ...chatConfig(model, workspace, memory.store), sessionId }, { store, invokeModel: model.invokeModel }),
    switchModel: async (flag) => {
      const next = flag === null ? await offlineModel() : await chooseModel(env, flag);
      const previous = model;
      model = next;
      await previous.close();
    },
    close: async () => {
      await Promise.all([model.close(), memory.close(), store.close()]);
    },
  };
}
