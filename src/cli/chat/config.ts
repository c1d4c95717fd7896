import type { AgentConfig } from '../../runtime/agent/index.js';
import type { MemoryStore } from '../../memory/index.js';
import type { ModelChoice } from '../model.js';
import { builtInTools, type Workspace } from '../tools/index.js';

/** The agent configuration of a chat: its model, system prompt, built-in tools and condensation policy. */
export function chatConfig(
  model: Pick<ModelChoice, 'model' | 'contextWindow' | 'maxOutputTokens' | 'offline'>,
  workspace: Workspace,
  memory: MemoryStore,
  opts: { bash?: false } = {},
): AgentConfig {
  return {
    model: model.model,
    system: systemPrompt(workspace.root),
    tools: builtInTools({ workspace, memory, maxReadChars: Math.min(16_000, model.contextWindow ?? 16_000), bash: opts.bash }),
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    // The demo's window is tiny: keeping fewer turns verbatim lets a summary make real room.
    compaction: model.offline ? { keepRecent: 4 } : {},
  };
}

function systemPrompt(root: string): string {
  return [
    'You are the assistant of the indusagi terminal chat.',
    `Your tools can list and read files under the workspace folder ${root}, write files there (each write waits for the user's approval), tell the current time, and remember or recall facts across sessions.`,
    'Use them when they help; keep answers short and plain, since they are read in a terminal.',
  ].join(' ');
}
