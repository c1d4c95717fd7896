// The OpenAI Responses wire format in the ModelInvoker contract's neutral terms: scripted replies as
// loopback-server scripts, recorded request bodies as neutral transcripts. Shared by the OpenAI
// invoker's harness and the AI SDK adapter's (whose `@ai-sdk/openai` model speaks the same API).
import type { ModelInvoker } from '../../src/runtime/contract/model.js';
import type { StreamLimits } from '../../src/providers/shared/index.js';
import type { InvokerHarness, ScriptedReply, SentRequest } from '../runtime/contract/model-invoker-contract.js';
import { response, startOpenAIServer, type OpenAITestServer, type ScriptItem, type Script } from './openai-server.js';

/** How many frames precede the second text delta of a one-text response (created, in_progress, item, part, delta). */
const AFTER_FIRST_DELTA = 5;
/** The frames that begin a stream: response.created. */
const AFTER_START = 1;

export function openaiScript(reply: ScriptedReply): Script {
  switch (reply.kind) {
    case 'reply': {
      const items: ScriptItem[] = [];
      if (reply.text !== undefined) items.push({ type: 'text', text: reply.text, chunks: reply.chunks });
      for (const call of reply.calls ?? [])
        items.push({ type: 'function_call', callId: call.id, name: call.name, arguments: call.input, rawArguments: call.rawJson });
      const usage = reply.usage;
      return response.items(items, {
        ...(reply.stop === 'max_tokens' && { incomplete: 'max_output_tokens' as const }),
        // The API's input_tokens is the whole prompt, cached part included.
        ...(usage && {
          usage: { input_tokens: usage.input + (usage.cacheRead ?? 0), output_tokens: usage.output, cached_tokens: usage.cacheRead ?? 0 },
        }),
        frameDelayMs: reply.frameDelayMs,
      });
    }
    case 'http_error':
      return response.httpError(
        reply.status,
        reply.retryAfterMs === undefined ? {} : { headers: { 'retry-after-ms': String(reply.retryAfterMs) } },
      );
    case 'too_long':
      return response.contextLengthExceeded();
    case 'broken':
      return response.text(reply.text, {
        interrupt:
          reply.how === 'error_event'
            ? { afterFrames: AFTER_FIRST_DELTA, with: 'error' }
            : { afterFrames: AFTER_FIRST_DELTA, with: reply.how },
      });
    case 'stall':
      return response.text('Never sent.', { interrupt: { afterFrames: AFTER_START, with: reply.how } });
    case 'flood':
      return response.text('Never sent.', { interrupt: { afterFrames: AFTER_START, with: 'flood', bytes: reply.bytes } });
  }
}

/** A Responses API request body, read back neutrally (system text from `instructions` and system/developer messages). */
export function openaiSent(body: any): SentRequest {
  const system: string[] = body.instructions ? [body.instructions] : [];
  const transcript: string[] = [];
  for (const item of body.input ?? []) {
    const type = item.type ?? 'message';
    if (type === 'message') {
      // One line per content part, as the Anthropic harness has one per block.
      const texts: string[] = typeof item.content === 'string' ? [item.content] : item.content.map((part: { text: string }) => part.text);
      if (item.role === 'system' || item.role === 'developer') system.push(texts.join(''));
      else for (const text of texts) transcript.push(`${item.role}: ${text}`);
    } else if (type === 'function_call') {
      transcript.push(`call ${item.call_id} ${item.name} ${normalJson(item.arguments)}`);
    } else if (type === 'function_call_output') {
      transcript.push(`result ${item.call_id}: ${typeof item.output === 'string' ? item.output : JSON.stringify(item.output)}`);
    } else {
      transcript.push(`unexpected item ${type}`);
    }
  }
  return {
    model: body.model,
    system: system.join('\n\n'),
    tools: (body.tools ?? []).map((tool: { name: string }) => tool.name),
    maxOutputTokens: body.max_output_tokens,
    transcript,
  };
}

/** The model id the AI SDK harnesses bind their model objects to. */
export const AI_SDK_MODEL = 'gpt-test';

/**
 * A harness over a fresh OpenAI loopback server, the invoker built from it by `make` with the given
 * stream limits, or the defaults (bound to `boundModel`, if it is).
 */
export async function openaiHarness(
  make: (server: OpenAITestServer, limits?: StreamLimits) => ModelInvoker,
  boundModel?: string,
): Promise<InvokerHarness> {
  const server = await startOpenAIServer();
  return {
    invoker: make(server),
    limited: (limits) => make(server, limits),
    bytesSent: (index) => server.requests[index]?.bytesSent ?? 0,
    boundModel,
    script: (...replies) => server.enqueue(...replies.map(openaiScript)),
    respond: (responder) => server.respond((body, index) => openaiScript(responder(openaiSent(body), index))),
    sent: () => server.requests.map((r) => openaiSent(r.body)),
    closedEarly: (index) => server.requests[index]?.clientClosedEarly === true,
    close: () => server.close(),
  };
}

function normalJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}
