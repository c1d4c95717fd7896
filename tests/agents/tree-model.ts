// A loopback Anthropic model for trees of agents: the real SDK talks to the scripted server, which
// answers each request by the agent that sent it (read from its system prompt, "You are the <name>
// agent.") and where its conversation stands. A prompt gets the calls that agent's plan names (or a
// plain answer); tool results get an answer quoting them. Every request is recorded with the agent
// and the number of messages it sent, so a test can tell a step asked twice from a step asked once.
import { reply, startAnthropicServer, type AnthropicTestServer, type Script, type ScriptUsage } from '../../src/testing/index.js';

/** What an agent does with a prompt: the calls it makes (none: it answers). */
export type Plan = (prompt: string) => Array<{ name: string; input: unknown }>;

export type TreeRequest = { agent: string; messages: number; maxTokens: number; body: any };

export type TreeModel = {
  server: AnthropicTestServer;
  requests: TreeRequest[];
  /** Requests of one agent. */
  of(agent: string): TreeRequest[];
  close(): Promise<void>;
};

export type TreeModelOptions = {
  /** The usage each reply reports; default 10 input, 5 output. */
  usage?: (request: TreeRequest) => ScriptUsage;
  /** A script that replaces the usual answer (an HTTP error, say) when it returns one. */
  override?: (request: TreeRequest) => Script | undefined;
};

export const systemOf = (name: string) => `You are the ${name} agent.`;

export async function startTreeModel(plans: Record<string, Plan>, options: TreeModelOptions = {}): Promise<TreeModel> {
  const server = await startAnthropicServer();
  const requests: TreeRequest[] = [];
  server.respond((body) => {
    const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b: { text: string }) => b.text).join('\n');
    const agent = /You are the ([\w-]+) agent\./.exec(system)?.[1] ?? 'unknown';
    const request: TreeRequest = { agent, messages: body.messages.length, maxTokens: body.max_tokens, body };
    requests.push(request);
    const usage = options.usage?.(request) ?? { input_tokens: 10, output_tokens: 5 };
    const overridden = options.override?.(request);
    if (overridden !== undefined) return overridden;
    const last = body.messages.at(-1);
    const content: any[] = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    const results = content.filter((block) => block.type === 'tool_result');
    if (results.length > 0) {
      const quoted = results.map((r) =>
        typeof r.content === 'string' ? r.content : r.content.map((b: { text: string }) => b.text).join(''),
      );
      return reply.text(`${agent} heard: ${quoted.join(' + ')}`, { usage });
    }
    const prompt = content
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join('\n');
    const calls = plans[agent]?.(prompt) ?? [];
    if (calls.length === 0) return reply.text(`${agent} answers ${prompt}`, { usage });
    return reply.tools(calls, { usage });
  });
  return {
    server,
    requests,
    of: (agent) => requests.filter((request) => request.agent === agent),
    close: () => server.close(),
  };
}
