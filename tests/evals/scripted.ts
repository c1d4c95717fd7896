// A scripted model behind the ModelInvoker seam and a small agent around it, shared by the evals tests:
// "weather in CITY" calls the weather tool, "add A and B" the calculator, "research TOPIC" a sub-agent
// (which looks the topic up itself), anything else is echoed. Every call is billed 100 in, 20 out.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, type AgentDeps } from '../../src/providers/anthropic/index.js';
import { agentTool } from '../../src/agents/index.js';
import { SessionStore } from '../../src/runtime/store/index.js';
import type { AgentConfig, ModelInvoker, ModelReply, ModelRequest, ToolDefinition } from '../../src/runtime/index.js';
import type { EvaluableAgent } from '../../src/evals/index.js';

export const MODEL = 'claude-haiku-5-5';

const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };

function textOf(request: ModelRequest): { prompt: string; results: string[] } {
  const last = request.messages.at(-1)!;
  const results = last.blocks.flatMap((b) => (b.kind === 'tool_result' ? [b.content] : []));
  const firstUser = [...request.messages].reverse().find((t) => t.role === 'user' && t.blocks.some((b) => b.kind === 'text'));
  const prompt = firstUser?.blocks.flatMap((b) => (b.kind === 'text' ? [b.text] : [])).join('') ?? '';
  return { prompt, results };
}

let callSeq = 0;
function call(name: string, input: unknown): ModelReply {
  return {
    turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: `call_${++callSeq}`, name, input }] },
    stopReason: 'tool_use',
    usage,
  };
}
function say(text: string): ModelReply {
  return { turn: { role: 'assistant', blocks: [{ kind: 'text', text }] }, stopReason: 'end_turn', usage };
}

/** The scripted model; `calls` counts its invocations. */
export function scriptedModel(): ModelInvoker & { calls: number } {
  const model = Object.assign(
    async (request: ModelRequest): Promise<ModelReply> => {
      model.calls++;
      const { prompt, results } = textOf(request);
      if (results.length > 0) {
        if (request.system?.includes('researcher')) return say(`found: ${results.join('; ')}`);
        return say(`The answer: ${results.join('; ')}`);
      }
      let m: RegExpExecArray | null;
      if (request.system?.includes('researcher')) return call('lookup', { topic: prompt });
      if ((m = /weather in (\w+)/i.exec(prompt))) return call('weather', { city: m[1] });
      if ((m = /add (-?\d+) and (-?\d+)/i.exec(prompt))) return call('calculator', { a: Number(m[1]), b: Number(m[2]) });
      if ((m = /research (\w+)/i.exec(prompt))) return call('researcher', { prompt: m[1] });
      if (/fail/.test(prompt)) throw new Error('the scripted model refuses');
      return say(`echo: ${prompt}`);
    },
    { calls: 0 },
  );
  return model;
}

export const weather: ToolDefinition = {
  name: 'weather',
  description: 'The weather in a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: ({ city }: { city: string }) => (city === 'Paris' ? 'sunny, 21C' : 'rain, 12C'),
};
export const calculator: ToolDefinition = {
  name: 'calculator',
  description: 'Adds two numbers',
  inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  execute: ({ a, b }: { a: number; b: number }) => String(a + b),
};
const lookup: ToolDefinition = {
  name: 'lookup',
  description: 'Looks a topic up',
  inputSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  execute: ({ topic }: { topic: string }) => `${topic} is well documented`,
};

export function agentConfig(): AgentConfig {
  const researcher = agentTool(
    { model: MODEL, system: 'You are the researcher.', tools: [lookup] },
    { name: 'researcher', description: 'Researches a topic' },
  );
  return { model: MODEL, system: 'You are the assistant.', tools: [weather, calculator, researcher] };
}

/** What `defineAgent(config, deps)` will be: one config, a fresh agent per session. */
export function definition(config: AgentConfig, deps: AgentDeps): EvaluableAgent {
  return { open: (o) => createAgent({ ...config, sessionId: o?.sessionId }, deps) };
}

export async function scratchStore(): Promise<{ dir: string; store: SessionStore; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-evals-'));
  return { dir, store: new SessionStore(join(dir, 'sessions')), cleanup: () => rm(dir, { recursive: true, force: true }) };
}
