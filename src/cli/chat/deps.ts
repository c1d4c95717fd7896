import type { Agent } from '../../runtime/agent/index.js';
import type { PendingApproval } from '../../runtime/contract/events.js';
import type { CliSessionStore } from '../session-store.js';
import type { ApprovalRules } from '../approvals.js';
import type { ModelFlag } from '../model-flag.js';
import type { Paint } from '../style.js';
import type { Choice } from '../tui/index.js';
import type { ChatView } from './view.js';

/** What a chat is built from: the store, how to make its agent, where it shows things, the model in use. */
export type ChatDeps = {
  /** Read without the writer lock, for listings, the tree and resolving node prefixes; the agent writes. */
  store: CliSessionStore;
  /** An agent on `sessionId`, with the model in use now. */
  makeAgent(sessionId: string): Agent;
  view: ChatView;
  paint: Paint;
  /** One line on stderr, for what a piped chat's reader must see apart from the transcript. */
  warn(text: string): void;
  /** Which waiting calls are approved without asking; `a` at an approval prompt adds to it. */
  rules: ApprovalRules;
  /** What a waiting call would do, for the approval prompt (a terminal's). */
  describeApproval(call: PendingApproval): Promise<string[]>;
  /** The model in use: its id and window (for the status line) and how the banner describes it. */
  model(): { id: string; contextWindow: number; describe: string; offline: boolean };
  /** `/model`: what it offers, the key a model would need and lacks, and switching (null: the offline demo model). */
  models: {
    choices(): Array<Choice<ModelFlag>>;
    missingKey(flag: ModelFlag): string | undefined;
    switchTo(flag: ModelFlag | null): Promise<void>;
  };
  /** What `/mcp` prints: the MCP servers, their state and tool counts; absent without servers. */
  mcpStatus?: () => string;
  /** What `/memory` prints: where the memory is and how it recalls; absent when the chat has no memory to describe. */
  memoryStatus?: () => string;
};
