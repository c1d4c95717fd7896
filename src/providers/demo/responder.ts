import { createHash } from 'node:crypto';
import { DEMO_BANNER } from './card/index.js';
import { DemoRequestError } from './errors.js';
import { readIntent, type Intent } from './intents.js';
import { longStory } from './story.js';
import { isSummaryRequest, summarize } from './summary.js';
import { parseDemoRequest, type DemoRequest, type WireBlock } from './request.js';
import { DEMO_TOOLS, type DemoToolKey } from './vocabulary.js';

export type DemoReplyBlock =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export type DemoStopReason = 'end_turn' | 'tool_use' | 'max_tokens';

/** One scripted assistant message, before it is put on the wire. */
export type DemoReply = {
  id: string;
  model: string;
  content: DemoReplyBlock[];
  stopReason: DemoStopReason;
  usage: { inputTokens: number; outputTokens: number };
};

const PHRASES = [
  'list files in src',
  'read package.json',
  'what time is it?',
  'remember that my cat is called Tom',
  'what do you remember about my cat?',
  'write hello to notes.txt',
  'replace hello with goodbye in notes.txt',
  'run ls -la',
  'tell me a long story',
];

// With a tool catalog or MCP servers (docs/mcp.md): listed by `help`.
const CATALOG_PHRASES = ['search tools for echo', 'call echo with hi'];

/** The meta-tool a lazy tool catalog (and MCP's) offers: `search_tools` (tools/lazy-toolset.ts). */
const SEARCH_TOOLS = 'search_tools';

// With agents (docs/subagents.md): listed by `help`, not in the short answer to anything else.
const AGENT_PHRASES = ['ask the researcher to read notes.md', 'hand me to the writer'];

const MAX_QUOTED_RESULT = 1_500;

/**
 * The demo model: a pure function from an Anthropic Messages request body to a scripted reply.
 * It answers tool results with a text that uses them, a condensation request with a short summary,
 * and a prompt by the first phrase it recognises (see `readIntent`). Same body, same reply.
 */
export function respond(body: unknown): DemoReply {
  const request = parseDemoRequest(body);
  const content = isSummaryRequest(request) ? [text(summarize(request))] : converse(request);
  return finish(request, content);
}

function converse(request: DemoRequest): DemoReplyBlock[] {
  const last = request.messages[request.messages.length - 1];
  if (last.role !== 'user') throw new DemoRequestError('messages: the last message must come from the user');
  const results = last.content.filter((b): b is Extract<WireBlock, { type: 'tool_result' }> => b.type === 'tool_result');
  if (results.length > 0) return [text(answerResults(request, results))];
  return answerPrompt(request, newestPrompt(last));
}

/**
 * The prompt to answer: the last text of the last message. A run stopped before its answer leaves its
 * prompt unanswered, and the wire merges it with the next one into one message; the newest is the
 * one being asked (a whole message's text would let the stopped prompt's phrase win).
 */
function newestPrompt(message: DemoRequest['messages'][number]): string {
  for (let i = message.content.length - 1; i >= 0; i--) {
    const block = message.content[i];
    if (block.type === 'text' && block.text.trim() !== '') return block.text.trim();
  }
  return '';
}

function answerPrompt(request: DemoRequest, prompt: string): DemoReplyBlock[] {
  const intent = readIntent(prompt);
  switch (intent.kind) {
    case 'tool':
      return callTool(request, intent);
    case 'delegate':
      return delegate(request, intent.tasks);
    case 'handoff':
      return handOff(request, intent.agent);
    case 'search':
      return searchTools(request, intent.query);
    case 'call':
      return callNamed(request, intent.tool, intent.argument);
    case 'long':
      return [text(`${DEMO_BANNER} A long answer, streamed slowly so you can interrupt it (Ctrl-C in the terminal).\n\n${longStory()}`)];
    case 'help':
      return [
        text(
          `${DEMO_BANNER} I am a scripted stand-in for Claude; no network and no API key needed. Phrases I act on:\n${[...PHRASES, ...AGENT_PHRASES, ...CATALOG_PHRASES].map((p) => `- ${p}`).join('\n')}`,
        ),
      ];
    case 'chat':
      return [text(chatAnswer(prompt))];
  }
}

function chatAnswer(prompt: string): string {
  const heard = prompt === '' ? 'nothing' : `"${clip(prompt, 120)}"`;
  return `${DEMO_BANNER} I am the offline demo model, a scripted stand-in for Claude: I do not understand free text. You said ${heard}. Try: ${PHRASES.join(' · ')}.`;
}

function callTool(request: DemoRequest, intent: Extract<Intent, { kind: 'tool' }>): DemoReplyBlock[] {
  const name = DEMO_TOOLS[intent.tool];
  if (!request.tools.some((t) => t.name === name)) {
    return [text(`${DEMO_BANNER} I would call the ${name} tool for that, but this conversation offers no such tool.`)];
  }
  const id = `toolu_demo_${digest(request).slice(0, 24)}`;
  return [text(`${DEMO_BANNER} ${announce(intent.tool, intent.input)}`), { type: 'tool_use', id, name, input: intent.input }];
}

/** Calls the tool named for each agent (a sub-agent's, made with agentTool), with the task as its prompt, all at once. */
function delegate(request: DemoRequest, tasks: Array<{ agent: string; task: string }>): DemoReplyBlock[] {
  const missing = tasks.filter((t) => !request.tools.some((tool) => tool.name === t.agent)).map((t) => t.agent);
  if (missing.length > 0) {
    return [text(`${DEMO_BANNER} I would ask ${missing.join(' and ')} for that, but this conversation offers no such agent.`)];
  }
  const id = digest(request).slice(0, 20);
  return [
    text(`${DEMO_BANNER} Asking ${tasks.map((t) => t.agent).join(' and ')}.`),
    ...tasks.map((t, i): DemoReplyBlock => ({ type: 'tool_use', id: `toolu_demo_${id}_${i}`, name: t.agent, input: { prompt: t.task } })),
  ];
}

/** Calls `search_tools` with `query`, so the tools it finds are offered on the next request. */
function searchTools(request: DemoRequest, query: string): DemoReplyBlock[] {
  if (!request.tools.some((t) => t.name === SEARCH_TOOLS)) {
    return [
      text(`${DEMO_BANNER} I would search the tool catalog for "${clip(query, 80)}", but this conversation has no ${SEARCH_TOOLS} tool.`),
    ];
  }
  return [
    text(`${DEMO_BANNER} Searching the tools for "${clip(query, 80)}".`),
    { type: 'tool_use', id: `toolu_demo_${digest(request).slice(0, 24)}`, name: SEARCH_TOOLS, input: { query } },
  ];
}

/**
 * Calls the offered tool named `wanted` (or, failing that, the one whose name ends in `_wanted`, as an
 * MCP server's tools are named `server_tool`), with `argument` as its input: a JSON object as it is,
 * else the text as the first string property its schema requires (or lists).
 */
function callNamed(request: DemoRequest, wanted: string, argument: string): DemoReplyBlock[] {
  const plain = wanted.replace(/[^a-zA-Z0-9_-]/g, '_');
  const tool =
    request.tools.find((t) => t.name === plain) ?? request.tools.find((t) => t.name !== SEARCH_TOOLS && t.name.endsWith(`_${plain}`));
  if (tool === undefined) {
    const hint = request.tools.some((t) => t.name === SEARCH_TOOLS) ? ` Try "search tools for ${wanted}" first.` : '';
    return [text(`${DEMO_BANNER} I would call ${wanted}, but this conversation offers no such tool.${hint}`)];
  }
  const input = toolInput(tool.inputSchema, argument);
  if (input === undefined) {
    return [
      text(
        `${DEMO_BANNER} I would call ${tool.name}, but its input has no text field to put "${clip(argument, 40)}" in; give the input as a JSON object.`,
      ),
    ];
  }
  return [
    text(`${DEMO_BANNER} Calling ${tool.name}.`),
    { type: 'tool_use', id: `toolu_demo_${digest(request).slice(0, 24)}`, name: tool.name, input },
  ];
}

function toolInput(schema: Record<string, unknown> | undefined, argument: string): Record<string, unknown> | undefined {
  if (argument.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(argument);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // Not JSON after all: the text goes in a string field, as any other text does.
    }
  }
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]).filter((n): n is string => typeof n === 'string') : [];
  const field = [...required, ...Object.keys(properties)].find((name) => properties[name]?.type === 'string');
  return field === undefined ? undefined : { [field]: argument };
}

/** Calls `transfer_to_<agent>`, the tool a handoff gives. */
function handOff(request: DemoRequest, agent: string): DemoReplyBlock[] {
  const name = `transfer_to_${agent.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  if (!request.tools.some((t) => t.name === name)) {
    return [text(`${DEMO_BANNER} I would hand you to ${agent}, but this conversation has no handoff to such an agent.`)];
  }
  return [
    text(`${DEMO_BANNER} Handing you over to ${agent}.`),
    { type: 'tool_use', id: `toolu_demo_${digest(request).slice(0, 24)}`, name, input: {} },
  ];
}

function announce(tool: DemoToolKey, input: Record<string, string>): string {
  switch (tool) {
    case 'list':
      return `Listing ${input.path}.`;
    case 'read':
      return `Reading ${input.path}.`;
    case 'write':
      return `Writing ${input.content.length} characters to ${input.path}; that needs your approval.`;
    case 'edit':
      return `Replacing "${clip(input.old_string, 40)}" in ${input.path}; that needs your approval.`;
    case 'bash':
      return `Running \`${clip(input.command, 80)}\`; that needs your approval.`;
    case 'time':
      return 'Checking the clock.';
    case 'remember':
      return 'Saving that to memory.';
    case 'recall':
      return 'Searching memory.';
  }
}

function answerResults(request: DemoRequest, results: Extract<WireBlock, { type: 'tool_result' }>[]): string {
  const previous = request.messages[request.messages.length - 2];
  const calls = new Map(
    (previous?.role === 'assistant' ? previous.content : [])
      .filter((b): b is Extract<WireBlock, { type: 'tool_use' }> => b.type === 'tool_use')
      .map((b) => [b.id, b]),
  );
  const paragraphs = results.map((result) => {
    const call = calls.get(result.tool_use_id);
    if (!call) throw new DemoRequestError(`tool_result ${result.tool_use_id} answers no tool_use in the previous assistant message`);
    if (result.is_error) return `The ${call.name} call did not go through: ${clip(result.content, MAX_QUOTED_RESULT)}`;
    return describeResult(call.name, call.input, result.content);
  });
  return `${DEMO_BANNER} ${paragraphs.join('\n\n')}`;
}

function describeResult(name: string, input: unknown, content: string): string {
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const quoted = clip(content, MAX_QUOTED_RESULT);
  switch (name) {
    case DEMO_TOOLS.list:
      return `${String(args.path ?? '.')} holds:\n${quoted}`;
    case DEMO_TOOLS.read:
      return `${String(args.path)} reads:\n${quoted}`;
    case DEMO_TOOLS.write:
    case DEMO_TOOLS.edit:
      return `Done. ${quoted}`;
    case DEMO_TOOLS.bash:
      return `The command printed:\n${quoted}`;
    case DEMO_TOOLS.time:
      return `The clock tool says it is ${quoted}.`;
    case DEMO_TOOLS.remember:
      return `Remembered. ${quoted}`;
    case DEMO_TOOLS.recall:
      return `Memory returned, for "${String(args.query ?? '')}":\n${quoted}`;
    default:
      return `The ${name} tool returned:\n${quoted}`;
  }
}

/** Output beyond `max_tokens` is cut, as the real API does, at the demo's 4-characters-a-token rate. */
function finish(request: DemoRequest, content: DemoReplyBlock[]): DemoReply {
  const hasToolUse = content.some((b) => b.type === 'tool_use');
  let stopReason: DemoStopReason = hasToolUse ? 'tool_use' : 'end_turn';
  let blocks = content;
  if (!hasToolUse && tokens(content) > request.maxTokens) {
    const allowed = request.maxTokens * 4;
    blocks = [
      text(
        content
          .map((b) => (b.type === 'text' ? b.text : ''))
          .join('')
          .slice(0, allowed),
      ),
    ];
    stopReason = 'max_tokens';
  }
  return {
    id: `msg_demo_${digest(request).slice(0, 24)}`,
    model: request.model,
    content: blocks,
    stopReason,
    usage: {
      inputTokens: Math.ceil(JSON.stringify([request.system, request.messages, request.tools]).length / 4),
      outputTokens: tokens(blocks),
    },
  };
}

function tokens(blocks: DemoReplyBlock[]): number {
  const chars = blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : JSON.stringify(b.input).length + b.name.length), 0);
  return Math.max(1, Math.ceil(chars / 4));
}

// Ids derive from the conversation so the responder stays pure. They only need to be unique along one
// conversation path, and a path only grows, so each call sees a new digest.
function digest(request: DemoRequest): string {
  return createHash('sha256')
    .update(JSON.stringify([request.system, request.messages]))
    .digest('hex');
}

function text(value: string): DemoReplyBlock {
  return { type: 'text', text: value };
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}… (${value.length - max} more characters)` : value;
}
