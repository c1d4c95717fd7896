import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createAgent } from '../../providers/anthropic/index.js';
import type { Agent } from '../../runtime/agent/index.js';
import type { ApprovalRules } from '../approvals.js';
import { settleTrust, type WorkspaceTrust } from '../workspace-trust.js';
import type { ChatCommand } from '../args.js';
import { openMemory } from '../memory/index.js';
import { openSessionStore, type CliSessionStore } from '../session-store.js';
import { chooseModel, offlineModel, type ModelChoice } from '../model.js';
import type { ModelFlag } from '../model-flag.js';
import { Workspace } from '../tools/index.js';
import { chatConfig } from './config.js';
import { modelCard } from '../../runtime/models/index.js';
import type { Ask, ChatMcp } from '../mcp/chat.js';
import { PROJECT_FILE } from '../mcp/config-files.js';

/** What a chat and a `-p` run both stand on: the store, the model, and agents over them. */
export type ChatSetup = {
  store: CliSessionStore;
  /** The model agents are made with now (`switchModel` changes it). */
  readonly model: ModelChoice;
  workspace: Workspace;
  /** Which waiting calls are approved without asking (the user's settings file, and a trusted workspace's). */
  rules: ApprovalRules;
  /** Notes about the memory file (lines it could not read) and the MCP servers (those that failed), for the user. */
  memoryNotes: string[];
  /** What `/mcp` prints; absent without MCP servers. */
  mcpStatus?: () => string;
  /** What `/memory` prints: where the memory is and how it recalls (the embedder, or words only and why). */
  memoryStatus: () => string;
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
 * Opens the memory (a file or a PostgreSQL URL), the workspace and its settings, and the MCP servers
 * before the model starts; `close()` lets go of all of it. `ask` puts the questions about trusting the
 * workspace and starting its `.mcp.json` to the person (none: not asked, and the workspace's own
 * approval rules and answers are left unused unless it was trusted before).
 */
export async function setUpChat(command: ChatCommand, env: NodeJS.ProcessEnv, cwd: string, ask?: Ask): Promise<ChatSetup> {
  const store = openSessionStore(command.locations.store);
  let memory: Awaited<ReturnType<typeof openMemory>>;
  try {
    memory = await openMemory(command.locations.memory, { embedder: command.embedder });
  } catch (error) {
    await store.close();
    throw error;
  }
  let model: ModelChoice;
  let workspace: Workspace;
  let rules: ApprovalRules;
  let trust: WorkspaceTrust;
  try {
    workspace = await Workspace.open(cwd);
    trust = await settleTrust(workspace.root, env, ask);
    rules = trust.rules;
    model = await chooseModel(env, command.model);
  } catch (error) {
    await Promise.all([memory.close(), store.close()]);
    throw error;
  }
  let mcp: ChatMcp | null = null;
  const notes = [...memory.notes, ...trust.notes];
  // MCP is loaded only for a chat that may have servers to start.
  if (command.mcp.length > 0 || existsSync(join(workspace.root, PROJECT_FILE))) {
    try {
      const own = chatConfig(model, workspace, memory.store).tools ?? [];
      const opened = await (await import('../mcp/chat.js')).openChatMcp(command.mcp, workspace.root, env, own, trust, ask);
      mcp = opened.mcp;
      notes.push(...opened.notes);
    } catch (error) {
      await Promise.all([model.close(), memory.close(), store.close()]);
      throw error;
    }
  }
  /** The chat's config for the model in use: its tools, and with MCP servers their catalog under the model's window. */
  const configFor = (choice: ModelChoice) => {
    const config = chatConfig(choice, workspace, memory.store);
    if (mcp === null) return config;
    const card = modelCard(choice.model);
    config.context = mcp.context(choice.contextWindow ?? card.contextWindow, choice.maxOutputTokens ?? card.maxOutputTokens);
    config.tools = mcp.tools(config.tools ?? []);
    return config;
  };
  return {
    store,
    get model() {
      return model;
    },
    workspace,
    rules,
    memoryNotes: notes,
    mcpStatus: mcp?.status,
    memoryStatus: () => `${memory.describe().join('\n')}\n`,
    makeAgent: (sessionId) => {
      const agent = createAgent({ ...configFor(model), sessionId }, { store, invokeModel: model.invokeModel });
      return mcp === null ? agent : mcp.restoring(agent);
    },
    switchModel: async (flag) => {
      const next = flag === null || flag.provider === 'demo' ? await offlineModel('chosen with /model') : await chooseModel(env, flag);
      const previous = model;
      model = next;
      await previous.close();
    },
    close: async () => {
      await Promise.all([model.close(), memory.close(), store.close(), mcp?.close()]);
    },
  };
}
