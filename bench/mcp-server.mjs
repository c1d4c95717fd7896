// The MCP server of `npm run bench mcp`: newline-delimited JSON-RPC over stdio, plain JavaScript so it
// starts as fast as a server can. It lists the tools in the JSON file TOOLS_FILE names
// ([{ name, description, inputSchema }]) and answers every call with its arguments as text.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const tools = process.env.TOOLS_FILE ? JSON.parse(readFileSync(process.env.TOOLS_FILE, 'utf8')) : [];
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

function answer(message) {
  switch (message.method) {
    case 'initialize':
      return {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'bench', version: '1.0.0' },
      };
    case 'tools/list':
      return { tools };
    case 'tools/call':
      return { content: [{ type: 'text', text: JSON.stringify(message.params.arguments ?? {}) }] };
    case 'ping':
      return {};
    default:
      return undefined;
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  const result = answer(message);
  if (result === undefined)
    send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  else send({ jsonrpc: '2.0', id: message.id, result });
});
process.stdin.on('end', () => process.exit(0));
