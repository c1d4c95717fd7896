import type Anthropic from '@anthropic-ai/sdk';
import { reply, type Script, type ScriptBlock } from '../testing/index.js';
import { startScriptedServer } from '../testing/anthropic-server.js';
import { DemoRequestError, respond, type DemoReply, type DemoReplyBlock } from '../providers/demo/index.js';

export type DemoModelOptions = {
  /** Pause between streamed frames so streaming is visible in a terminal. Default 15 ms; 0 streams flat out. */
  chunkDelayMs?: number;
  /** Port on 127.0.0.1. Default 0: any free port. */
  port?: number;
};

/** A running demo model. Point `new Anthropic({ baseURL, apiKey: 'offline-demo' })` at `baseURL`. */
export type DemoModel = {
  baseURL: string;
  /** A real `Anthropic` client for this model (no retries: there is nothing to wait out). */
  client(): Anthropic;
  close(): Promise<void>;
};

/**
 * Starts the offline demo model: the scripted Anthropic-compatible server (`POST /v1/messages`,
 * streamed or not, on the loopback interface only) with the demo responder answering every request.
 */
export async function startDemoModel(options: DemoModelOptions = {}): Promise<DemoModel> {
  const [{ default: Anthropic }, server] = await Promise.all([import('@anthropic-ai/sdk'), startDemoServer(options)]);
  return { ...server, client: () => new Anthropic({ baseURL: server.baseURL, apiKey: 'offline-demo', maxRetries: 0 }) };
}

/**
 * The demo model without `client()`, for a caller that brings its own client: `npm start` shows its first
 * prompt before `@anthropic-ai/sdk` has loaded.
 */
export async function startDemoServer(options: DemoModelOptions = {}): Promise<Omit<DemoModel, 'client'>> {
  const chunkDelayMs = options.chunkDelayMs ?? 15;
  const server = await startScriptedServer({ port: options.port });
  server.respond((body) => {
    try {
      return demoScript(respond(body), chunkDelayMs);
    } catch (error) {
      if (DemoRequestError.isInstance(error))
        return reply.httpError(400, { message: error.message, headers: { 'x-should-retry': 'false' } });
      throw error;
    }
  });
  return { baseURL: server.baseURL, close: () => server.close() };
}

function demoScript(demo: DemoReply, frameDelayMs: number): Script {
  return reply.message(demo.content.map(scriptBlock), {
    id: demo.id,
    stopReason: demo.stopReason,
    usage: { input_tokens: demo.usage.inputTokens, output_tokens: demo.usage.outputTokens },
    frameDelayMs,
  });
}

function scriptBlock(block: DemoReplyBlock): ScriptBlock {
  // Three words (with their trailing space) per delta: small enough that streaming is visible.
  if (block.type === 'text') return { ...block, chunks: wordChunks(block.text) };
  return block;
}

function wordChunks(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += 3) chunks.push(words.slice(i, i + 3).join(''));
  return chunks;
}
