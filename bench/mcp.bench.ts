// MCP: what the catalog saves and what the client costs, each against a baseline measured in the same run.
//   1. Tokens of tool definitions per model request, 10 servers x 50 tools: every tool sent (eager)
//      against the catalog (search_tools and the menu). Target: >= 95% fewer.
//   2. Connect + list of a stdio server: connectMcp against the bare SDK client. Target: <= 1.1x.
//   3. A tool call round trip through the agent (a model step at the seam, the call, its result)
//      against the bare SDK `callTool`. Target: < 1 ms overhead per call.
//   4. search_tools over 5,000 MCP tools: p50 against a linear scan. Target: p50 < 200 us.
// Servers are real processes (bench/mcp-server.mjs) listing tools with realistic schemas.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectMcp, connectMcpServers, mcpToolSource, type McpServerConfig } from '../src/mcp/index.js';
import { createContextManager } from '../src/context/index.js';
import { createConductor, type ModelInvoker, type ModelRequest } from '../src/runtime/index.js';
import { toolTerms } from '../src/tools/lazy-toolset.js';
import { linearBm25Scan } from './bm25-scan.js';
import { fmt, median, now, report, reportSearchVsScan, sample } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const SERVER = fileURLToPath(new URL('./mcp-server.mjs', import.meta.url));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
// The 1-minute load average beside every figure: the machine is shared.
const load = () => ` (load ${loadavg()[0].toFixed(2)})`;

const text = corpus(3_000, 11);
type Spec = { name: string; description: string; inputSchema: object };
const TYPES = ['string', 'number', 'boolean', 'integer'];

/** A tool as real servers list them: a snake_case name, a sentence or two, 1 to 6 described properties. */
function toolSpec(i: number): Spec {
  const properties: Record<string, object> = {};
  const count = 1 + Math.floor(text.random() * 6);
  for (let p = 0; p < count; p++) {
    properties[`${text.word()}_${p}`] = { type: TYPES[Math.floor(text.random() * TYPES.length)], description: text.sentence(5, 14) };
  }
  const required = Object.keys(properties).slice(0, Math.ceil(count / 2));
  return {
    name: `${text.word()}_${text.word()}_${i}`,
    description: text.sentence(10, 40),
    inputSchema: { type: 'object', properties, required },
  };
}

const dir = await mkdtemp(join(tmpdir(), 'indusagi-bench-mcp-'));
async function serverWith(specs: Spec[], file: string): Promise<McpServerConfig> {
  const path = join(dir, file);
  await writeFile(path, JSON.stringify(specs));
  return { command: process.execPath, args: [SERVER], env: { TOOLS_FILE: path }, needsApproval: false };
}

const tokens = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);

// The tool the round trips call: its input is valid, so every call reaches the server.
const ECHO: Spec = {
  name: 'echo',
  description: 'Echoes its text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to echo.' } }, required: ['text'] },
};

try {
  // 1. Tokens per request.
  const configs: Record<string, McpServerConfig> = {};
  for (let s = 0; s < 10; s++)
    configs[`server${s}`] = await serverWith(
      Array.from({ length: 50 }, (_, i) => toolSpec(s * 50 + i)),
      `s${s}.json`,
    );
  const ten = await connectMcpServers(configs);
  const sent: ModelRequest[] = [];
  const answer: ModelInvoker = async (request) => {
    sent.push(request);
    return { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'ok' }] }, stopReason: 'end_turn' };
  };
  const eager = createConductor({ model: 'bench', tools: ten.tools() }, { invokeModel: answer });
  await eager.submit('hello');
  const catalog = mcpToolSource(ten);
  const context = createContextManager({ budget: { maxTokens: 200_000, count: (t) => Math.ceil(t.length / 4) }, sources: [catalog] });
  const lazy = createConductor({ model: 'bench', tools: ten.tools(), context }, { invokeModel: answer });
  await lazy.submit('hello');
  const eagerTokens = tokens(sent[0].tools);
  // The catalog's cost is its tools and the menu it adds to the system prompt.
  const lazyTokens = tokens(sent[1].tools) + Math.ceil((sent[1].system ?? '').length / 4);
  console.log(
    `tool definitions per request, 10 servers x 50 tools: eager ${eagerTokens} tokens, catalog ${lazyTokens} tokens (${sent[1].tools?.length} tool + menu)`,
  );
  const saved = 1 - lazyTokens / eagerTokens;
  report('catalog vs eager, tokens per request', lazyTokens, eagerTokens, 'tokens');
  console.log(`the catalog sends ${(saved * 100).toFixed(1)}% fewer tokens (target >= 95%: ${saved >= 0.95 ? 'met' : 'MISSED'})${load()}`);
  await ten.close();

  // 2. Connect + list.
  const one = await serverWith([ECHO, ...Array.from({ length: 49 }, (_, i) => toolSpec(10_000 + i))], 'one.json');
  const oneFile = join(dir, 'one.json');
  const bare = async () => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SERVER],
        env: { TOOLS_FILE: oneFile },
      }),
    );
    await client.listTools();
    await client.close();
  };
  const ours = async () => {
    const client = await connectMcp('one', one);
    await client.close();
  };
  await bare();
  await ours();
  const bareTimes: number[] = [];
  const ourTimes: number[] = [];
  // Interleaved, so a change of machine load falls on both.
  for (let i = 0; i < 25; i++) {
    gc();
    bareTimes.push(...(await sample(1, bare)));
    gc();
    ourTimes.push(...(await sample(1, ours)));
  }
  report(`connect + list a stdio server (50 tools), median of 25${load()}`, median(ourTimes), median(bareTimes), 'ms', 1.1);

  // 3. A tool call round trip.
  const CALLS = 300;
  const client = await connectMcp('one', one);
  const sdkClient = new Client({ name: 'bench', version: '1' });
  await sdkClient.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [SERVER],
      env: { TOOLS_FILE: oneFile },
    }),
  );
  const tool = client.tools().find((candidate) => candidate.mcp.name === 'echo')!;
  const args = { text: 'x' };
  let step = 0;
  const steps: ModelInvoker = async () =>
    ++step % (CALLS + 1) !== 0
      ? {
          turn: { role: 'assistant', blocks: [{ kind: 'tool_call', id: `c${step}`, name: tool.name.replace('.', '_'), input: args }] },
          stopReason: 'tool_use',
        }
      : { turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'done' }] }, stopReason: 'end_turn' };
  const agent = createConductor({ model: 'bench', tools: [...client.tools()], maxSteps: CALLS + 2 }, { invokeModel: steps });
  let answered = 0;
  agent.subscribe((event) => {
    if (event.kind === 'tool_finished' && !event.isError && event.result === '{"text":"x"}') answered++;
  });
  const runCalls = async () => {
    answered = 0;
    await agent.submit('go');
    if (answered !== CALLS) throw new Error(`only ${answered} of ${CALLS} calls reached the server and came back`);
  };
  const bareCalls = async () => {
    for (let i = 0; i < CALLS; i++) {
      const result = await sdkClient.callTool({ name: tool.mcp.name, arguments: args });
      if ((result.content as Array<{ text?: string }>)[0]?.text !== '{"text":"x"}') throw new Error('the bare call did not come back');
    }
  };
  await runCalls();
  await bareCalls();
  const agentRuns: number[] = [];
  const bareRuns: number[] = [];
  for (let i = 0; i < 5; i++) {
    gc();
    agentRuns.push(...(await sample(1, runCalls)));
    gc();
    bareRuns.push(...(await sample(1, bareCalls)));
  }
  const perAgent = median(agentRuns) / CALLS;
  const perBare = median(bareRuns) / CALLS;
  report(`a tool call through the agent vs the bare SDK callTool, ms per call${load()}`, perAgent, perBare, 'ms');
  const overhead = perAgent - perBare;
  console.log(`overhead per call: ${fmt(overhead * 1000)} us (target < 1 ms: ${overhead < 1 ? 'met' : 'MISSED'})`);
  await client.close();
  await sdkClient.close();

  // 4. search_tools over 5,000 MCP tools.
  const big: Record<string, McpServerConfig> = {};
  const all: Spec[] = [];
  for (let s = 0; s < 10; s++) {
    const specs = Array.from({ length: 500 }, (_, i) => toolSpec(20_000 + s * 500 + i));
    all.push(...specs);
    big[`srv${s}`] = await serverWith(specs, `big${s}.json`);
  }
  const many = await connectMcpServers(big);
  const source = mcpToolSource(many);
  const asked = queries(
    all.map((spec) => `${spec.name.replace(/_/g, ' ')} ${spec.description}`),
    text,
    3_000,
  );
  const search = (query: string) => {
    void source.handle!('search_tools', { query });
    source.toolset.reset();
  };
  const times = (list: string[], run: (q: string) => unknown) =>
    list.map((q) => {
      const start = now();
      run(q);
      return (now() - start) * 1000;
    });
  times(asked.slice(0, 300), search);
  gc();
  const indexed = times(asked, search);
  const scan = linearBm25Scan(many.tools().map((tool) => toolTerms({ name: tool.name, description: tool.description })));
  times(asked.slice(0, 30), scan);
  gc();
  const scanned = times(asked.slice(0, 500), scan);
  reportSearchVsScan(`search_tools over ${many.tools().length} MCP tools, 3,000 queries${load()}`, 'search_tools', indexed, scanned, 200);
  await many.close();
} finally {
  await rm(dir, { recursive: true, force: true });
}
