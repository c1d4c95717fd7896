import type { ContextSource, ContextTurn, Loaded } from '../context/types.js';
import { errorMessage } from '../errors/index.js';
import type { McpClient } from './client-types.js';
import type { McpResourceContents } from './content.js';
import { McpConfigError } from './errors.js';
import type { McpServers } from './servers.js';

/** A resource to add to a turn: its URI on a server (the server may be left out when the source has one). */
export type McpResourceRef = string | { server: string; uri: string };

export type McpResourceSourceOptions = {
  /** The source's name in parts and events. Default `'resources'`. */
  name?: string;
  /** Resources to add to every turn. */
  always?: readonly McpResourceRef[];
  /** Picks resources for a turn from what it is about (an `@server:uri` mention in the prompt, say). */
  pick?: (turn: ContextTurn) => readonly McpResourceRef[] | Promise<readonly McpResourceRef[]>;
};

/** A context source that adds MCP resources to turns; `attach` adds one to the next turn only. */
export type McpResourceSource = ContextSource & { attach(resource: McpResourceRef): void };

/**
 * Reads the resources a turn should carry (`always`, `pick`'s, and those `attach`ed since the last
 * turn) and adds their text to the system prompt, under the manager's budget: a selection too big for
 * what is left is skipped and reported, as any source's. Binary contents are named, not inlined. A
 * resource that cannot be read is reported in the text, so the model knows it is missing.
 */
export function mcpResourceSource(from: McpServers | McpClient, options: McpResourceSourceOptions = {}): McpResourceSource {
  const clients: ReadonlyMap<string, McpClient> = 'clients' in from ? from.clients : new Map([[from.name, from]]);
  const only = clients.size === 1 ? [...clients.keys()][0] : undefined;
  const resolve = (ref: McpResourceRef): { server: string; uri: string } => {
    if (typeof ref === 'string') {
      if (only === undefined)
        throw new McpConfigError(`The resource "${ref}" needs its server: { server, uri }, since the source has several.`);
      return { server: only, uri: ref };
    }
    if (typeof ref !== 'object' || ref === null || typeof ref.uri !== 'string' || typeof ref.server !== 'string')
      throw new McpConfigError('A resource is a URI string or { server, uri }.');
    if (!clients.has(ref.server)) throw new McpConfigError(`No MCP server named "${ref.server}" in this source.`);
    return ref;
  };
  const always = (options.always ?? []).map(resolve);
  let attached: Array<{ server: string; uri: string }> = [];

  return {
    name: options.name ?? 'resources',
    attach(resource) {
      attached.push(resolve(resource));
    },
    async select(turn): Promise<Loaded | null> {
      const picked = options.pick === undefined ? [] : (await options.pick(turn)).map(resolve);
      const wanted = dedupe([...always, ...attached, ...picked]);
      attached = [];
      if (wanted.length === 0) return null;
      const read = await Promise.all(
        wanted.map(async (ref) => {
          try {
            return { ref, contents: await clients.get(ref.server)!.readResource(ref.uri) };
          } catch (error) {
            return { ref, error: errorMessage(error) };
          }
        }),
      );
      const parts = read.map(({ ref, contents, error }) =>
        contents === undefined
          ? `[The resource ${ref.uri} of server "${ref.server}" could not be read: ${error}]`
          : contents.map((c) => formatContents(ref.server, c)).join('\n'),
      );
      return { op: 'loaded', text: ['Resources for this turn:', ...parts].join('\n') };
    },
  };
}

function formatContents(server: string, contents: McpResourceContents): string {
  const type = contents.mimeType === undefined ? '' : ` mimeType="${contents.mimeType}"`;
  if ('text' in contents) return `<resource server="${server}" uri="${contents.uri}"${type}>\n${contents.text}\n</resource>`;
  const bytes = Math.floor((contents.blob.length * 3) / 4);
  return `<resource server="${server}" uri="${contents.uri}"${type} bytes="${bytes}">(binary, not shown)</resource>`;
}

function dedupe(refs: Array<{ server: string; uri: string }>): Array<{ server: string; uri: string }> {
  const seen = new Set<string>();
  return refs.filter((ref) => {
    const key = `${ref.server}\u0000${ref.uri}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
