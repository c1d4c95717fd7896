import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpPrompt, McpPromptResult, McpResource, McpResourceTemplate } from './client-types.js';
import { promptTurns, resourceContents, type McpResourceContents } from './content.js';
import { listAll } from './pages.js';
import type { ClientSdk } from './sdk.js';

// A server's resources and prompts, read on a live connection. Lists are read loosely (see `listAll`):
// each item keeps the fields MCP names and nothing else, so a server's extras never reach the caller.

export async function listServerResources(sdk: ClientSdk, client: Client, options: RequestOptions): Promise<McpResource[]> {
  return (await listAll(sdk, client, options, 'resources/list', 'resources')).map(
    (item) => pick(item, ['uri', 'name', 'title', 'description', 'mimeType', 'size']) as McpResource,
  );
}

export async function listServerResourceTemplates(sdk: ClientSdk, client: Client, options: RequestOptions): Promise<McpResourceTemplate[]> {
  return (await listAll(sdk, client, options, 'resources/templates/list', 'resourceTemplates')).map(
    (item) => pick(item, ['uriTemplate', 'name', 'title', 'description', 'mimeType']) as McpResourceTemplate,
  );
}

export async function readServerResource(client: Client, uri: string, options: RequestOptions): Promise<McpResourceContents[]> {
  return resourceContents((await client.readResource({ uri }, options)).contents);
}

export async function listServerPrompts(sdk: ClientSdk, client: Client, options: RequestOptions): Promise<McpPrompt[]> {
  return (await listAll(sdk, client, options, 'prompts/list', 'prompts')).map((item) => {
    const prompt = pick(item, ['name', 'title', 'description']) as McpPrompt;
    const args = Array.isArray(item.arguments) ? (item.arguments as Array<Record<string, unknown>>) : [];
    prompt.arguments = args.map((arg) => ({
      ...(pick(arg, ['name', 'description']) as { name: string }),
      required: arg.required === true,
    }));
    return prompt;
  });
}

/** A prompt's messages as turns. */
export async function getServerPrompt(
  client: Client,
  name: string,
  args: Record<string, string>,
  options: RequestOptions,
): Promise<McpPromptResult> {
  const result: GetPromptResult = await client.getPrompt({ name, arguments: args }, options);
  const out: McpPromptResult = { messages: promptTurns(result.messages) };
  if (result.description !== undefined) out.description = result.description;
  return out;
}

function pick(item: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (item[key] !== undefined) out[key] = item[key];
  return out;
}
