// The smallest agent loop over a ContextManager, through the real Anthropic SDK: the reference for what
// the conductor must call, and when. One turn = compact -> prepare -> (model call -> tools)* -> commit.
import type Anthropic from '@anthropic-ai/sdk';
import type { ContextManager } from '../../src/context/index.js';
import type { AgentPart } from '../../src/parts/index.js';
import type { Block, Turn } from '../../src/runtime/contract/turn.js';
import type { ModelTool } from '../../src/runtime/contract/model.js';
import { sanitizeToolName } from '../../src/tools/index.js';
import { ToolError } from '../../src/entries/errors.js';
import type { Toolset } from '../../src/tools/index.js';

export type DriveOptions = {
  client: Anthropic;
  context: ContextManager;
  toolset: Toolset;
  prompt: string;
  history?: Turn[];
  system?: string;
};

function toApi(turn: Turn): Anthropic.MessageParam {
  const content = turn.blocks.flatMap((block): Anthropic.ContentBlockParam[] => {
    if (block.kind === 'text') return [{ type: 'text', text: block.text }];
    if (block.kind === 'tool_call') return [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }];
    if (block.kind === 'tool_result')
      return [{ type: 'tool_result', tool_use_id: block.callId, content: block.content, is_error: block.isError }];
    return [];
  });
  return { role: turn.role, content };
}

// The manager speaks the runtime's `ModelTool`; this loop's model is Anthropic's, so it converts, as an invoker does.
const toApiTools = (tools: ModelTool[]): Anthropic.Tool[] =>
  tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema as Anthropic.Tool.InputSchema }));

function fromApi(content: Anthropic.ContentBlock[]): Block[] {
  return content.flatMap((block): Block[] => {
    if (block.type === 'text') return [{ kind: 'text', text: block.text }];
    if (block.type === 'tool_use') return [{ kind: 'tool_call', id: block.id, name: block.name, input: block.input }];
    return [];
  });
}

export async function driveTurn(opts: DriveOptions): Promise<{ parts: AgentPart[]; messages: Turn[]; text: string }> {
  const { client, context, toolset, prompt, system } = opts;
  const parts: AgentPart[] = [];
  // 1. Compaction first, so the budget below sees the history as it will be sent.
  let messages = await context.compact([...(opts.history ?? []), { role: 'user', blocks: [{ kind: 'text', text: prompt }] }]);
  const turn = { prompt, messages, system };
  // 2. Once per turn: tools, system text and budgeted selections.
  const prepared = await context.prepare(turn);
  parts.push(...prepared.parts);
  let tools: Anthropic.Tool[] = prepared.tools
    ? toApiTools(prepared.tools)
    : toolset.tools.map((tool) => ({ ...tool, name: sanitizeToolName(tool.name) }) as Anthropic.Tool);
  const fullSystem = [system, prepared.system].filter(Boolean).join('\n\n');
  let text = '';

  for (let step = 0; step < 8; step++) {
    const reply = await client.messages
      .stream({
        model: 'claude-test',
        max_tokens: 1024,
        system: fullSystem,
        tools,
        messages: messages.map(toApi),
      })
      .finalMessage();
    messages = [...messages, { role: 'assistant', blocks: fromApi(reply.content) }];
    const calls = reply.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    if (calls.length === 0) {
      text = reply.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
      break;
    }
    const results: Block[] = [];
    for (const call of calls) {
      // 3. Every call goes to handle first; null means it is an ordinary tool.
      const name = prepared.nameMap.get(call.name) ?? call.name;
      try {
        const handled = await context.handle(call.name, call.input, turn);
        const result = handled ? handled.result : await toolset.execute(name, call.input, { callId: call.id });
        parts.push({ type: 'tool', name, callId: call.id, input: call.input, result });
        if (handled) {
          parts.push(...handled.parts);
          // Found tools become callable on the very next model call.
          if (handled.tools) tools = toApiTools(handled.tools);
        }
        results.push({ kind: 'tool_result', callId: call.id, content: JSON.stringify(result) });
      } catch (error) {
        if (!ToolError.isInstance(error)) throw error;
        parts.push({ type: 'tool', name, callId: call.id, input: call.input, result: error.message, isError: true });
        results.push({ kind: 'tool_result', callId: call.id, content: error.message, isError: true });
      }
    }
    messages = [...messages, { role: 'user', blocks: results }];
  }
  // 4. After the loop: write-backs.
  parts.push(...(await context.commit({ ...turn, messages, text })));
  return { parts, messages, text };
}
