// Turn builders and an in-process ModelInvoker for the compaction tests.
import type { ModelInvoker, Turn } from '../../../src/entries/runtime.js';
import type { ModelReply, ModelRequest } from '../../../src/entries/models.js';

export const user = (text: string): Turn => ({ role: 'user', blocks: [{ kind: 'text', text }] });
export const assistant = (text: string): Turn => ({ role: 'assistant', blocks: [{ kind: 'text', text }] });

/** An assistant turn calling one or more tools. */
export const calls = (...list: { id: string; name?: string; input?: unknown }[]): Turn => ({
  role: 'assistant',
  blocks: list.map(({ id, name = 'files_read', input = { path: `/src/${id}.ts` } }) => ({ kind: 'tool_call', id, name, input })),
});

/** A user turn carrying results for one or more calls. */
export const results = (...list: { id: string; content?: string; isError?: boolean }[]): Turn => ({
  role: 'user',
  blocks: list.map(({ id, content = `contents of ${id}`, isError }) => ({ kind: 'tool_result', callId: id, content, isError })),
});

/** A tool loop of `pairs` call/result pairs after one prompt: 1 + 2 × pairs turns. */
export function toolLoop(pairs: number, resultChars = 40): Turn[] {
  const out: Turn[] = [user('Refactor the build pipeline in /repo/build.ts')];
  for (let i = 0; i < pairs; i++) {
    out.push(calls({ id: `c${i}` }), results({ id: `c${i}`, content: `r${i}:`.padEnd(resultChars, 'x') }));
  }
  return out;
}

export type RecordingInvoker = ModelInvoker & { requests: ModelRequest[] };

/**
 * An invoker that records every request and answers each with `answer(request, callIndex)`:
 * a string becomes an `end_turn` text reply, a ModelReply is returned as is, an Error is thrown.
 */
export function recordingInvoker(answer: (request: ModelRequest, call: number) => string | ModelReply | Error): RecordingInvoker {
  const requests: ModelRequest[] = [];
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    requests.push(request);
    const out = answer(request, requests.length - 1);
    if (out instanceof Error) throw out;
    if (typeof out === 'string') {
      return {
        turn: { role: 'assistant', blocks: [{ kind: 'text', text: out }] },
        stopReason: 'end_turn',
        usage: { inputTokens: 100, outputTokens: 20, cacheWriteTokens: 0, cacheReadTokens: 0 },
      };
    }
    return out;
  };
  return Object.assign(invoke, { requests });
}

/** The single text the summarizer request carried to the model. */
export function promptOf(request: ModelRequest): string {
  const block = request.messages[0].blocks[0];
  if (block.kind !== 'text') throw new Error('summary request without text');
  return block.text;
}

/** True when every tool_result in `tail` answers a tool_call that is also in `tail`, earlier. */
export function tailIsSelfContained(tail: readonly Turn[]): boolean {
  const seen = new Set<string>();
  for (const turn of tail) {
    for (const block of turn.blocks) {
      if (block.kind === 'tool_call') seen.add(block.id);
      if (block.kind === 'tool_result' && !seen.has(block.callId)) return false;
    }
  }
  return true;
}
