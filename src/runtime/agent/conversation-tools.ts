import type { ModelTool, ResumableTool, ToolContext, ToolDefinition, ToolNameMap } from '../contract/index.js';
import type { InputCheck, LoopTools } from '../loop/types.js';
import { HISTORY_READ, HISTORY_SEARCH } from '../history/index.js';

// The history tools' names: always these two, whatever the conversation.
const HISTORY = new Set([HISTORY_SEARCH, HISTORY_READ]);

// A definition's specs without the history tools, worked out once per toolset (not once per conversation).
const withoutHistory = new WeakMap<LoopTools, ModelTool[]>();
function alwaysShown(tools: LoopTools): ModelTool[] {
  let always = withoutHistory.get(tools);
  if (always === undefined) {
    always = tools.specs.filter((spec) => !HISTORY.has(tools.names.toOriginal.get(spec.name) ?? spec.name));
    withoutHistory.set(tools, always);
  }
  return always;
}

/**
 * A definition's tools as one conversation runs them. The definition compiled every tool once, its
 * built-in history tools included; what is the conversation's is `history`, those tools built on its
 * own history (made on the first call of one: most conversations never compact): they are shown to
 * the model, and callable, only while `open()` says so (once a compaction left something to search),
 * and their calls go to this conversation's history. A class, so a conversation (one per sub-agent
 * call) allocates one object, not a closure per method.
 */
export function conversationTools(tools: LoopTools, history: () => readonly ToolDefinition[], open: () => boolean): LoopTools {
  return new ConversationTools(tools, history, open);
}

class ConversationTools implements LoopTools {
  #own: Map<string, ToolDefinition> | undefined;

  constructor(
    private readonly tools: LoopTools,
    private readonly history: () => readonly ToolDefinition[],
    private readonly open: () => boolean,
  ) {}

  get specs(): ModelTool[] {
    return this.open() ? this.tools.specs : alwaysShown(this.tools);
  }

  get names(): ToolNameMap {
    return this.tools.names;
  }

  has(name: string): boolean {
    return this.tools.has(name) && (!HISTORY.has(name) || this.open());
  }

  needsApproval(name: string): boolean {
    return this.tools.needsApproval(name);
  }

  idempotent(name: string): boolean {
    return this.tools.idempotent(name);
  }

  resumable(name: string): ResumableTool | undefined {
    return this.tools.resumable(name);
  }

  check(name: string, input: unknown): InputCheck | Promise<InputCheck> {
    return this.tools.check(name, input);
  }

  execute(name: string, input: unknown, ctx: ToolContext): unknown {
    if (!HISTORY.has(name)) return this.tools.execute(name, input, ctx);
    this.#own ??= new Map(this.history().map((tool) => [tool.name, tool]));
    const mine = this.#own.get(name);
    return mine === undefined ? this.tools.execute(name, input, ctx) : mine.execute(input, ctx);
  }
}
