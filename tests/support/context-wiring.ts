// Shared pieces for the context-wiring tests: a small tool catalogue, readers for the request bodies
// the loopback Anthropic server recorded, and a fake model that reports prompt sizes like the API.
import type { ToolDefinition } from '../../src/entries/runtime.js';
import type { AgentPart } from '../../src/parts/index.js';
import { toToolset, mergeToolsets } from '../../src/tools/index.js';
import type { AnthropicTestServer, MessageScript, Script } from '../../src/testing/index.js';

const schema = { type: 'object', properties: { customer: { type: 'string' } } };

/**
 * One local tool (`notes.list`, meant to be pinned) and a remote catalogue: an invoice tool, a refund
 * tool and 30 helpers, enough that a lazy toolset matters. `calls` records every execution by the
 * original name the executor saw.
 */
export function catalogue() {
  const calls: Array<{ name: string; input: unknown }> = [];
  const define = (name: string, description: string, result: unknown): ToolDefinition => ({
    name,
    description,
    inputSchema: schema,
    execute: (input) => (calls.push({ name, input }), result),
  });
  const definitions = [
    define('notes.list', 'List the notes.', ['buy milk']),
    define('billing.createInvoice', 'Create an invoice for a customer.', { invoice: 'INV-1' }),
    define('billing.refund', 'Refund a payment.', 'refunded'),
    ...Array.from({ length: 30 }, (_, i) => define(`misc.tool${i}`, `Miscellaneous helper number ${i}.`, i)),
  ];
  const local = toToolset(definitions.slice(0, 1));
  const merged = mergeToolsets(local, toToolset(definitions.slice(1)));
  return { definitions, local, merged, calls };
}

/** The system prompt of a request body as one string, whether it was sent as a string or as blocks. */
export function systemOf(body: any): string {
  if (body?.system === undefined) return '';
  if (typeof body.system === 'string') return body.system;
  return body.system.map((block: { text: string }) => block.text).join('\n\n');
}

export const toolNames = (body: any): string[] => (body?.tools ?? []).map((tool: { name: string }) => tool.name);

/** What a part stream looked like, text left out: `context:memory:recalled`, `tool:notes.list`, `memory:saved`. */
export function shape(parts: readonly AgentPart[]): string[] {
  return parts.flatMap((part) => {
    if (part.type === 'context') return [`context:${part.source}:${part.op}`];
    if (part.type === 'memory') return [`memory:${part.op}`];
    if (part.type === 'tool') return [`tool:${part.name}`];
    return [];
  });
}

/** The summarizer's request is the only one whose system prompt asks for a condensation. */
export const isSummarizerRequest = (body: any): boolean => systemOf(body).startsWith('You condense the earlier part');

/** The size of a request as a tokenizer would see it: every character the API receives, four to a token. */
export function promptTokens(body: any): number {
  return Math.ceil((JSON.stringify(body.messages).length + systemOf(body).length + JSON.stringify(body.tools ?? []).length) / 4);
}

/**
 * Answers the loopback server: summarizer requests with a short summary, every other request with
 * `agent(body, n)` (`n` counts the agent's own calls). Replies report `promptTokens(body)` as their
 * input, as the API would, so the conductor's calibration sees honest numbers.
 */
export function fakeModel(server: AnthropicTestServer, agent: (body: any, n: number) => Script): void {
  let calls = 0;
  server.respond((body) => {
    const script: Script = isSummarizerRequest(body)
      ? {
          kind: 'message',
          blocks: [{ kind: 'text', text: 'The user asked long questions about Acme; the assistant answered each at length.' }],
        }
      : agent(body, calls++);
    if (!('blocks' in script)) return script;
    return { ...script, usage: { input_tokens: promptTokens(body), output_tokens: 40 } } satisfies MessageScript;
  });
}

/** Roughly `words` words of filler after `label`, so a few turns fill a small window. */
export const long = (label: string, words = 350): string => `${label} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(words / 5))}`;
