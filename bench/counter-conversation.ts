// The conversation the loop and durability benchmarks drive: a model that answers instantly from a
// script of tool calls to one counter tool, then a final text. Built outside the timed regions.
import type { ModelInvoker, ModelReply, ToolDefinition } from '../src/runtime/index.js';

export const counterTool: ToolDefinition = {
  name: 'counter.bump',
  description: 'Adds one.',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  execute: (input: { n: number }) => input.n + 1,
};

/** `steps` replies: `steps - 1` calls of counter_bump, then a final text; each reports one token each way. */
export function counterScript(steps: number): ModelReply[] {
  const replies: ModelReply[] = [];
  const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
  for (let i = 0; i < steps - 1; i++) {
    replies.push({
      turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: `c${i}`, name: 'counter_bump', input: { n: i } }] },
      stopReason: 'tool_use',
      usage,
    });
  }
  replies.push({ turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'done' }] }, stopReason: 'end_turn', usage });
  return replies;
}

/** Answers instantly from the script, as an in-process model would. */
export function instantModel(replies: ModelReply[]): ModelInvoker {
  let next = 0;
  return async () => replies[next++];
}
