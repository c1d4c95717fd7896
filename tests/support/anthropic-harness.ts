// The Anthropic Messages wire format in the ModelInvoker contract's neutral terms: scripted replies as
// loopback-server scripts, recorded request bodies as neutral transcripts.
import type { ModelInvoker } from '../../src/runtime/contract/model.js';
import type { StreamLimits } from '../../src/providers/shared/index.js';
import type { InvokerHarness, ScriptedReply, SentRequest } from '../runtime/contract/model-invoker-contract.js';
import {
  reply as anthropicReply,
  startAnthropicServer,
  type AnthropicTestServer,
  type Script,
  type ScriptBlock,
} from '../../src/testing/index.js';

/** How many frames precede the second text delta of a one-text message (message_start, ping, block start, delta). */
const AFTER_FIRST_DELTA = 4;
/** The frames that begin a stream: message_start. */
const AFTER_START = 1;

export function anthropicScript(reply: ScriptedReply): Script {
  switch (reply.kind) {
    case 'reply': {
      const blocks: ScriptBlock[] = [];
      if (reply.text !== undefined) blocks.push({ kind: 'text', text: reply.text, chunks: reply.chunks });
      for (const call of reply.calls ?? [])
        blocks.push({ kind: 'tool_use', id: call.id, name: call.name, input: call.input, rawJson: call.rawJson });
      const usage = reply.usage;
      return anthropicReply.message(blocks, {
        ...(reply.stop === 'max_tokens' && { stopReason: 'max_tokens' }),
        ...(usage && { usage: { input_tokens: usage.input, output_tokens: usage.output, cache_read_input_tokens: usage.cacheRead ?? 0 } }),
        frameDelayMs: reply.frameDelayMs,
      });
    }
    case 'http_error':
      return anthropicReply.httpError(
        reply.status,
        reply.retryAfterMs === undefined ? {} : { headers: { 'retry-after-ms': String(reply.retryAfterMs) } },
      );
    case 'too_long':
      return anthropicReply.httpError(400, { message: 'prompt is too long: 212345 tokens > 200000 maximum' });
    case 'broken':
      return anthropicReply.text(reply.text, {
        interrupt: { afterFrames: AFTER_FIRST_DELTA, with: reply.how === 'error_event' ? 'error' : reply.how },
      });
    case 'stall':
      return anthropicReply.text('Never sent.', { interrupt: { afterFrames: AFTER_START, with: reply.how } });
    case 'flood':
      return anthropicReply.text('Never sent.', { interrupt: { afterFrames: AFTER_START, with: 'flood', bytes: reply.bytes } });
  }
}

/** A Messages API request body, read back neutrally. */
export function anthropicSent(body: any): SentRequest {
  const system =
    typeof body.system === 'string' ? body.system : (body.system ?? []).map((block: { text: string }) => block.text).join('\n\n');
  const transcript: string[] = [];
  for (const message of body.messages ?? []) {
    const blocks = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of blocks) {
      if (block.type === 'text') transcript.push(`${message.role}: ${block.text}`);
      else if (block.type === 'tool_use') transcript.push(`call ${block.id} ${block.name} ${JSON.stringify(block.input)}`);
      else if (block.type === 'tool_result')
        transcript.push(
          `result ${block.tool_use_id}: ${typeof block.content === 'string' ? block.content : (block.content ?? []).map((p: { text: string }) => p.text).join('')}`,
        );
      else transcript.push(`unexpected block ${block.type}`);
    }
  }
  return {
    model: body.model,
    system,
    tools: (body.tools ?? []).map((tool: { name: string }) => tool.name),
    maxOutputTokens: body.max_tokens,
    transcript,
  };
}

/**
 * A harness over a fresh Anthropic loopback server, the invoker built from it by `make` with the given
 * stream limits, or the defaults (bound to `boundModel`, if it is).
 */
export async function anthropicHarness(
  make: (server: AnthropicTestServer, limits?: StreamLimits) => ModelInvoker,
  boundModel?: string,
): Promise<InvokerHarness> {
  const server = await startAnthropicServer();
  return {
    invoker: make(server),
    limited: (limits) => make(server, limits),
    bytesSent: (index) => server.requests[index]?.bytesSent ?? 0,
    boundModel,
    script: (...replies) => server.enqueue(...replies.map(anthropicScript)),
    respond: (responder) => server.respond((body, index) => anthropicScript(responder(anthropicSent(body), index))),
    sent: () => server.requests.map((r) => anthropicSent(r.body)),
    closedEarly: (index) => server.requests[index]?.clientClosedEarly === true,
    close: () => server.close(),
  };
}
