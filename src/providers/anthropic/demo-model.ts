// The offline demo model in process: the demo responder (providers/demo) behind the `ModelInvoker`
// seam, reached through the same request body the Anthropic invoker sends, so a config that runs here
// runs against Claude. No server, no socket, no SDK: what `INDUSAGI_MODEL=demo` gives `createAgent`.
import type { ModelInvoker, ModelReply, ModelRequest } from '../../runtime/contract/model.js';
import type { Block } from '../../runtime/contract/turn.js';
import { ModelCallError, RunAbortedError } from '../../runtime/loop/errors.js';
import { DEMO_MODEL_CARD, DEMO_MODEL_ID, DemoRequestError, respond } from '../demo/index.js';
import { ANTHROPIC } from './cache.js';
import { requestBody } from './invoker.js';

/**
 * The offline demo model as an invoker (`createAgent({ model: demoModel() })`): scripted answers to the
 * phrases docs/cli.md lists, tool calls for the tools it knows, streamed to `onText` in small pieces.
 * A request it cannot read is a `ModelCallError` with status 400, as the API's refusal would be.
 */
export function demoModel(): ModelInvoker {
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    if (request.signal?.aborted) throw new RunAbortedError({ cause: request.signal.reason });
    let reply: ReturnType<typeof respond>;
    try {
      reply = respond(requestBody({ ...request, model: DEMO_MODEL_ID }, { cache: 'off' }, DEMO_MODEL_CARD));
    } catch (error) {
      if (DemoRequestError.isInstance(error)) throw new ModelCallError(error.message, { status: 400, cause: error });
      throw error;
    }
    request.onFirstChunk?.();
    for (const block of reply.content) {
      // Three words per piece, as the demo server streams them.
      if (block.type === 'text') for (const piece of block.text.match(/(?:\S+\s*){1,3}|\s+/g) ?? []) request.onText?.(piece);
    }
    const blocks: Block[] = reply.content.map((block) =>
      block.type === 'text'
        ? { kind: 'text', text: block.text }
        : { kind: 'tool_call', id: block.id, name: block.name, input: block.input },
    );
    return {
      turn: { role: 'assistant', blocks },
      stopReason: reply.stopReason,
      usage: { inputTokens: reply.usage.inputTokens, outputTokens: reply.usage.outputTokens, cacheWriteTokens: 0, cacheReadTokens: 0 },
      id: reply.id,
      model: DEMO_MODEL_ID,
    };
  };
  return Object.assign(invoke, { provider: ANTHROPIC, modelId: DEMO_MODEL_ID, card: DEMO_MODEL_CARD });
}
