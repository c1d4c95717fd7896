// Shared pieces for the compaction tests: a fake model behind the loopback Anthropic server that
// reports a prompt size the way the API does, a tool whose results are long enough to fill a small
// window, and readers for the recorded request bodies and the session on disk.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionStore } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import type { Agent, RunEvent, SessionNode, ToolDefinition, Turn } from '../../../src/entries/runtime.js';
import type { AnthropicTestServer, MessageScript, RecordedRequest, Script } from '../../../src/testing/index.js';

export { COMPACTION_PREFIX };

/** The summarizer's request is the only one whose system prompt asks for a compaction. */
export const isSummarizerRequest = (request: RecordedRequest): boolean =>
  typeof request.body?.system === 'string' && request.body.system.startsWith('You condense the earlier part');

/**
 * The prompt size of a request body as a tokenizer would see it: every character of the JSON the API
 * receives, four to a token. Larger than indusagi's own estimate (which counts content, not JSON
 * syntax), as a real count usually is, so calibration from it is exercised honestly.
 */
export function promptTokens(body: any): number {
  const chars =
    JSON.stringify(body.messages).length +
    (typeof body.system === 'string' ? body.system.length : 0) +
    JSON.stringify(body.tools ?? []).length;
  return Math.ceil(chars / 4);
}

/** The text the first block of a request message starts with ('' when it is not text). */
export function firstText(message: any): string {
  if (typeof message?.content === 'string') return message.content;
  const block = message?.content?.[0];
  return block?.type === 'text' ? block.text : '';
}

/** The turn shapes of a request, e.g. `['user:text', 'assistant:tool_use', 'user:tool_result']`. */
export const shapes = (body: any): string[] => body.messages.map((m: any) => `${m.role}:${m.content.map((c: any) => c.type).join('+')}`);

/**
 * Answers the loopback server from two functions: `summarize` for summarizer requests, `agent` for the
 * agent's own calls (`n` counts the agent's calls from 0). Message replies that set no usage report
 * `promptTokens(body)` as their input, like the API.
 */
export function fakeModel(
  server: AnthropicTestServer,
  handlers: { agent: (body: any, n: number) => Script; summarize?: (body: any, n: number) => Script },
) {
  let agentCalls = 0;
  let summaries = 0;
  server.respond((body) => {
    const summarizing = typeof body.system === 'string' && body.system.startsWith('You condense the earlier part');
    let script: Script;
    if (summarizing) {
      if (handlers.summarize === undefined) throw new Error('fakeModel: an unexpected summarizer request');
      script = handlers.summarize(body, summaries++);
    } else {
      script = handlers.agent(body, agentCalls++);
    }
    if ('blocks' in script && script.usage === undefined)
      return { ...script, usage: { input_tokens: promptTokens(body), output_tokens: 40 } } satisfies MessageScript;
    return script;
  });
}

/** What `read_chunk` returns for chunk `n`: `chars` characters that name the chunk at both ends. */
export function chunkText(n: number, chars: number): string {
  const head = `chunk ${n} begins. `;
  const tail = ` chunk ${n} ends.`;
  const filler = 'the quick brown fox jumps over the lazy dog '
    .repeat(Math.ceil(chars / 44))
    .slice(0, Math.max(0, chars - head.length - tail.length));
  return head + filler + tail;
}

/** A tool that returns chunk `input.n`, `sizeOf(n)` characters long. */
export function readChunkTool(sizeOf: (n: number) => number): ToolDefinition {
  return {
    name: 'read_chunk',
    description: 'Reads one numbered chunk of the document.',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: (input: { n: number }) => chunkText(input.n, sizeOf(input.n)),
  };
}

/** Records every event the agent publishes. */
export function record(agent: Agent): RunEvent[] {
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

export const compactedEvents = (events: RunEvent[]) =>
  events.filter((e): e is Extract<RunEvent, { kind: 'compacted' }> => e.kind === 'compacted');

/** The session as it is on disk: a fresh store reads the file. */
export async function storedSession(root: string, sessionId: string) {
  const graph = await new SessionStore(root).loadSession(sessionId);
  const leaf = graph.leaf!;
  const nodes = graph.nodesTo(leaf);
  const summaries = nodes.filter((n): n is SessionNode & { condenses: { firstKept: string | null } } => n.condenses !== undefined);
  return { graph, leaf, summaries, path: nodes.map((n) => n.turn) };
}

/** Every text, tool call id and tool result's call id of `turns`, in order. */
export function contentOf(turns: readonly Turn[]): string[] {
  return turns.flatMap((turn) =>
    turn.blocks.map((b) =>
      b.kind === 'text' ? b.text : b.kind === 'tool_call' ? `call ${b.id}` : b.kind === 'tool_result' ? `result ${b.callId}` : b.kind,
    ),
  );
}

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'indusagi-compaction-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
