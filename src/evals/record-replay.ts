// Record and replay: a ModelInvoker wrapper that keeps each model reply, keyed by a stable hash of the
// request, and one that serves them back with no network. A request the recording does not hold (a new
// system prompt, a renamed tool) is a `ReplayMissError`, never a live call.
import { createHash } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import stableStringify from 'fast-json-stable-stringify';
import type { ModelCard, ModelInvoker, ModelReply, ModelRequest } from '../runtime/contract/model.js';
import { currentCase } from './case-context.js';
import { RecordingFileError, ReplayMissError } from './errors.js';

/** One line of a recordings file. */
/** One line of a recordings file; `model` is the id the request named (what a replay must ask for again). */
export type RecordedReply = { key: string; case?: string; model: string; reply: ModelReply };

/**
 * The key of a request: a sha256 of what reaches the model (messages, system texts, tools, controls,
 * output format, provider options), not of the callbacks and signal around it. Inside `evaluate`, the
 * case's session id is replaced by a placeholder first: it is new on every run and reaches requests
 * through sub-agents' tool results (`{ sessionId, answer }`), and must not make every replay miss.
 */
export function requestKey(request: ModelRequest): string {
  const { signal: _signal, onText: _onText, onRetry: _onRetry, onFirstChunk: _onFirstChunk, cacheable: _cacheable, ...sent } = request;
  let text = stableStringify(sent);
  const session = currentCase()?.sessionId;
  if (session !== undefined) text = text.split(session).join('<case-session>');
  return createHash('sha256').update(text).digest('hex');
}

/** `invoker` as it is, except that every reply is appended to `file` (JSONL, one reply a line) under its request's key. */
export function recordModel(invoker: ModelInvoker, file: string): ModelInvoker & { readonly recorded: () => number } {
  let writes: Promise<void> = mkdir(dirname(file), { recursive: true }).then(() => undefined);
  let count = 0;
  const recording = async (request: ModelRequest): Promise<ModelReply> => {
    const key = requestKey(request);
    const reply = await invoker(request);
    const line: RecordedReply = { key, case: currentCase()?.caseId, model: request.model, reply };
    // One line per append, one append at a time: concurrent cases never interleave their lines.
    const write = writes.then(() => appendFile(file, `${JSON.stringify(line)}\n`));
    writes = write.catch(() => undefined);
    try {
      await write;
    } catch (error) {
      throw new RecordingFileError(`cannot append to the recordings file ${file}: ${(error as Error).message}`, { cause: error });
    }
    count++;
    return reply;
  };
  return Object.assign(recording, traitsOf(invoker), { recorded: () => count });
}

export type ReplayOptions = {
  /** The model the recorded replies came from, for the agent's card (window, prices): give the recording invoker's. */
  modelId?: string;
  card?: ModelCard;
  provider?: string;
};

/**
 * An invoker that answers every request from `file` (written by `recordModel`) and from nothing else:
 * a request whose key it does not hold rejects with `ReplayMissError`. The file is read on the first call.
 */
export function replayModel(
  file: string,
  options: ReplayOptions = {},
): ModelInvoker & { readonly hits: () => number; readonly misses: () => number } {
  let loaded: Promise<Map<string, ModelReply>> | undefined;
  let hits = 0;
  let misses = 0;
  const replaying = async (request: ModelRequest): Promise<ModelReply> => {
    const replies = await (loaded ??= loadRecordings(file));
    const key = requestKey(request);
    const reply = replies.get(key);
    if (reply === undefined) {
      misses++;
      throw new ReplayMissError(key, file);
    }
    hits++;
    if (reply.turn.blocks.length > 0) request.onFirstChunk?.();
    for (const block of reply.turn.blocks) if (block.kind === 'text') request.onText?.(block.text);
    return structuredClone(reply);
  };
  const traits: Record<string, unknown> = {};
  if (options.modelId !== undefined) traits.modelId = options.modelId;
  if (options.card !== undefined) traits.card = options.card;
  if (options.provider !== undefined) traits.provider = options.provider;
  return Object.assign(replaying, traits, { hits: () => hits, misses: () => misses });
}

/** The replies of a recordings file by key; the first reply recorded for a key is the one served. */
export async function loadRecordings(file: string): Promise<Map<string, ModelReply>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new RecordingFileError(`cannot read the recordings file ${file}: ${(error as Error).message}`, { cause: error });
  }
  const replies = new Map<string, ModelReply>();
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: RecordedReply;
    try {
      value = JSON.parse(line) as RecordedReply;
    } catch (error) {
      // A torn last line is what a killed recording leaves; anything else is damage worth naming.
      if (i === lines.length - 1) return;
      throw new RecordingFileError(`${file}:${i + 1}: not JSON (${(error as Error).message})`, { cause: error });
    }
    if (typeof value?.key !== 'string' || typeof value.reply?.turn !== 'object')
      throw new RecordingFileError(`${file}:${i + 1}: not a recorded reply`);
    if (!replies.has(value.key)) replies.set(value.key, value.reply);
  });
  return replies;
}

function traitsOf(invoker: ModelInvoker): Partial<ModelInvoker> {
  const traits: Record<string, unknown> = {};
  for (const key of ['provider', 'modelId', 'card', 'models'] as const) if (invoker[key] !== undefined) traits[key] = invoker[key];
  if (invoker.checkOptions !== undefined) traits.checkOptions = invoker.checkOptions.bind(invoker);
  if (invoker.checkControls !== undefined) traits.checkControls = invoker.checkControls.bind(invoker);
  return traits;
}
