// Shared helpers for the conductor tests: a model scripted at the `ModelInvoker` seam, reply builders,
// an event recorder and temporary directories.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ModelInvoker, ModelReply, ModelRequest, ModelUsage } from '../../../src/runtime/contract/model.js';
import type { RunEvent } from '../../../src/runtime/contract/events.js';
import type { Agent } from '../../../src/runtime/agent/index.js';
import type { Block } from '../../../src/runtime/contract/turn.js';

export type Step = ModelReply | ((request: ModelRequest) => ModelReply | Promise<ModelReply>);

export const usage = (inputTokens = 10, outputTokens = 5): ModelUsage => ({
  inputTokens,
  outputTokens,
  cacheWriteTokens: 0,
  cacheReadTokens: 0,
});

/** A reply that ends the turn with `text`. */
export function say(text: string, used: ModelUsage = usage()): ModelReply {
  return { turn: { role: 'assistant', blocks: [{ kind: 'text', text }] }, stopReason: 'end_turn', usage: used };
}

/** A reply that calls tools, under the names the model sees (sanitized). */
export function call(...calls: Array<{ name: string; input?: unknown; id: string }>): ModelReply {
  const blocks: Block[] = calls.map((c) => ({ kind: 'tool_call', id: c.id, name: c.name, input: c.input ?? {} }));
  return { turn: { role: 'assistant', blocks }, stopReason: 'tool_use', usage: usage() };
}

/**
 * A model scripted in-process: each call takes the next step, streams its text through `onText`, and
 * records a deep copy of the request so tests can assert what was sent.
 */
export function scriptedModel(...steps: Step[]) {
  const requests: ModelRequest[] = [];
  const invoke: ModelInvoker = async (request) => {
    requests.push({ ...request, messages: structuredClone(request.messages) });
    const step = steps.shift();
    if (step === undefined) throw new Error(`scripted model: call #${requests.length} has no scripted reply`);
    const reply = typeof step === 'function' ? await step(request) : step;
    for (const block of reply.turn.blocks) if (block.kind === 'text') request.onText?.(block.text);
    return reply;
  };
  return { invoke, requests, remaining: () => steps.length };
}

/** Records every event the agent publishes. */
export function record(agent: Agent): RunEvent[] {
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return events;
}

export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export async function tempDir(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'indusagi-conductor-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
