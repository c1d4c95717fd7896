import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { GetPromptResult, LoggingLevel, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { toMcpContent, type McpContent } from './content.js';
import { McpConfigError } from './errors.js';
import type { ServerSdk } from './sdk.js';

// What serveMcp serves besides tools: resources (direct and templated, with subscriptions), prompts,
// completion of their arguments, and the client's logging level.

/** What reading a resource gives: text, or bytes in base64 (`blob`); the URI defaults to the one read. */
export type ServedResourceContents = { uri?: string; mimeType?: string } & ({ text: string } | { blob: string });

/** Suggests values for one argument from what the user typed so far (and the other arguments given). */
export type ServedCompleter = (value: string, context: Record<string, string>) => readonly string[] | Promise<readonly string[]>;

/** A resource at a fixed URI. */
export type ServedResource = {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
  read: () =>
    ServedResourceContents | readonly ServedResourceContents[] | Promise<ServedResourceContents | readonly ServedResourceContents[]>;
};

/** Resources whose URIs follow an RFC 6570 level-1 template (`test://item/{id}`); `read` gets the variables. */
export type ServedResourceTemplate = {
  uriTemplate: string;
  name: string;
  description?: string;
  mimeType?: string;
  read: (
    uri: string,
    variables: Record<string, string>,
  ) => ServedResourceContents | readonly ServedResourceContents[] | Promise<ServedResourceContents | readonly ServedResourceContents[]>;
  /** Completers of the template's variables, by name. */
  complete?: Readonly<Record<string, ServedCompleter>>;
};

/** One message of a prompt: who says it, and one block of content. */
export type ServedPromptMessage = { role: 'user' | 'assistant'; content: McpContent };

/** A prompt template the client's user can pick, with string arguments. */
export type ServedPrompt = {
  name: string;
  title?: string;
  description?: string;
  arguments?: readonly { name: string; description?: string; required?: boolean }[];
  get: (args: Record<string, string>) => readonly ServedPromptMessage[] | Promise<readonly ServedPromptMessage[]>;
  /** Completers of the prompt's arguments, by name. */
  complete?: Readonly<Record<string, ServedCompleter>>;
};

export type ServedFeatures = {
  resources: readonly ServedResource[];
  templates: readonly ServedResourceTemplate[];
  prompts: ReadonlyMap<string, ServedPrompt>;
};

const VARIABLE = /\{([A-Za-z0-9_]+)\}/g;

/** Checks what serveMcp was given besides tools, before anything is served: bad input is an McpConfigError. */
export function servedFeatures(options: {
  resources?: readonly ServedResource[];
  resourceTemplates?: readonly ServedResourceTemplate[];
  prompts?: readonly ServedPrompt[];
}): ServedFeatures {
  const uris = new Set<string>();
  for (const resource of options.resources ?? []) {
    if (
      typeof resource?.uri !== 'string' ||
      !URI.test(resource.uri) ||
      typeof resource.name !== 'string' ||
      typeof resource.read !== 'function'
    )
      throw new McpConfigError('serveMcp: every resource needs a uri (scheme:...), a name and a read function.');
    if (uris.has(resource.uri)) throw new McpConfigError(`serveMcp: two resources have the URI "${resource.uri}".`);
    uris.add(resource.uri);
  }
  for (const template of options.resourceTemplates ?? []) {
    if (
      typeof template?.uriTemplate !== 'string' ||
      !URI.test(template.uriTemplate) ||
      typeof template.name !== 'string' ||
      typeof template.read !== 'function'
    )
      throw new McpConfigError('serveMcp: every resource template needs a uriTemplate (scheme:...{var}...), a name and a read function.');
    if ([...template.uriTemplate.matchAll(VARIABLE)].length === 0)
      throw new McpConfigError(`serveMcp: the resource template "${template.uriTemplate}" has no {variable}; serve it as a resource.`);
  }
  const prompts = new Map<string, ServedPrompt>();
  for (const prompt of options.prompts ?? []) {
    if (typeof prompt?.name !== 'string' || prompt.name === '' || typeof prompt.get !== 'function')
      throw new McpConfigError('serveMcp: every prompt needs a name and a get function.');
    if (prompts.has(prompt.name)) throw new McpConfigError(`serveMcp: two prompts are named "${prompt.name}".`);
    const names = (prompt.arguments ?? []).map((arg) => arg?.name);
    if (names.some((name) => typeof name !== 'string' || name === ''))
      throw new McpConfigError(`serveMcp: every argument of the prompt "${prompt.name}" needs a name.`);
    for (const name of Object.keys(prompt.complete ?? {}))
      if (!names.includes(name))
        throw new McpConfigError(`serveMcp: the prompt "${prompt.name}" completes "${name}", which is not one of its arguments.`);
    prompts.set(prompt.name, prompt);
  }
  return { resources: options.resources ?? [], templates: options.resourceTemplates ?? [], prompts };
}

const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

/** The variables of `uri` if it matches `template` (each variable one path segment or more, no `/`). */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const pattern = template
    .split(VARIABLE)
    .map((part, index) => {
      if (index % 2 === 1) {
        names.push(part);
        return '([^/?#]+)';
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  const match = new RegExp(`^${pattern}$`).exec(uri);
  if (match === null) return undefined;
  return Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(match[index + 1]!)]));
}

const LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a message at `level` reaches a client that set `threshold` (everything when it set none). */
export function logs(level: LoggingLevel, threshold: LoggingLevel | undefined): boolean {
  return threshold === undefined || LEVELS.indexOf(level) >= LEVELS.indexOf(threshold);
}

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && (LEVELS as readonly string[]).includes(value);
}

/** One session's server state: the resource URIs it subscribed to, and the logging level it asked for. */
export type SessionState = { server: Server; subscribed: Set<string>; level?: LoggingLevel };

/** Installs the resource, prompt, completion and logging handlers on one session's server. */
export function installFeatures(sdk: ServerSdk, state: SessionState, features: ServedFeatures): void {
  const { server } = state;
  const { types } = sdk;
  const invalid = (message: string) => new types.McpError(types.ErrorCode.InvalidParams, message);
  server.setRequestHandler(types.SetLevelRequestSchema, (request) => {
    if (!isLoggingLevel(request.params.level)) throw invalid(`Unknown logging level "${String(request.params.level)}".`);
    state.level = request.params.level;
    return {};
  });
  if (features.resources.length > 0 || features.templates.length > 0) {
    server.setRequestHandler(types.ListResourcesRequestSchema, () => ({
      resources: features.resources.map(({ uri, name, description, mimeType }) => strip({ uri, name, description, mimeType })),
    }));
    server.setRequestHandler(types.ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: features.templates.map(({ uriTemplate, name, description, mimeType }) =>
        strip({ uriTemplate, name, description, mimeType }),
      ),
    }));
    server.setRequestHandler(types.ReadResourceRequestSchema, async (request) => {
      const uri = request.params.uri;
      const direct = features.resources.find((resource) => resource.uri === uri);
      if (direct !== undefined) return contentsOf(uri, direct.mimeType, await direct.read());
      for (const template of features.templates) {
        const variables = matchTemplate(template.uriTemplate, uri);
        if (variables !== undefined) return contentsOf(uri, template.mimeType, await template.read(uri, variables));
      }
      // -32002 is what the spec names for a resource that is not there.
      throw new types.McpError(-32002, `Resource not found: ${uri}`, { uri });
    });
    server.setRequestHandler(types.SubscribeRequestSchema, (request) => {
      state.subscribed.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(types.UnsubscribeRequestSchema, (request) => {
      state.subscribed.delete(request.params.uri);
      return {};
    });
  }
  if (features.prompts.size > 0) {
    server.setRequestHandler(types.ListPromptsRequestSchema, () => ({
      prompts: [...features.prompts.values()].map((prompt) =>
        strip({
          name: prompt.name,
          title: prompt.title,
          description: prompt.description,
          arguments: (prompt.arguments ?? []).map((arg) =>
            strip({ name: arg.name, description: arg.description, required: arg.required === true }),
          ),
        }),
      ),
    }));
    server.setRequestHandler(types.GetPromptRequestSchema, async (request): Promise<GetPromptResult> => {
      const prompt = features.prompts.get(request.params.name);
      if (prompt === undefined) throw invalid(`Unknown prompt "${request.params.name}".`);
      const args = request.params.arguments ?? {};
      const missing = (prompt.arguments ?? [])
        .filter((arg) => arg.required === true && typeof args[arg.name] !== 'string')
        .map((arg) => arg.name);
      if (missing.length > 0)
        throw invalid(`The prompt "${prompt.name}" needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`);
      const messages = await prompt.get(args);
      const result: GetPromptResult = {
        messages: messages.map((message) => ({
          role: message.role,
          content: toMcpContent(message.content) as GetPromptResult['messages'][number]['content'],
        })),
      };
      if (prompt.description !== undefined) result.description = prompt.description;
      return result;
    });
  }
  if (features.prompts.size > 0 || features.templates.length > 0) {
    server.setRequestHandler(types.CompleteRequestSchema, async (request) => {
      const { ref, argument } = request.params;
      const context = request.params.context?.arguments ?? {};
      let completer: ServedCompleter | undefined;
      if (ref.type === 'ref/prompt') {
        const prompt = features.prompts.get(ref.name);
        if (prompt === undefined) throw invalid(`Unknown prompt "${ref.name}".`);
        completer = prompt.complete?.[argument.name];
      } else {
        const template = features.templates.find((candidate) => candidate.uriTemplate === ref.uri);
        if (template === undefined) throw invalid(`Unknown resource template "${ref.uri}".`);
        completer = template.complete?.[argument.name];
      }
      const all = completer === undefined ? [] : [...(await completer(argument.value, context))];
      // MCP caps a completion at 100 values; the rest is counted in `total`.
      return { completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 } };
    });
  }
}

/** The capabilities a session's server declares for what it serves. */
export function featureCapabilities(features: ServedFeatures): Record<string, object> {
  const capabilities: Record<string, object> = { tools: {}, logging: {} };
  if (features.resources.length > 0 || features.templates.length > 0) capabilities.resources = { subscribe: true };
  if (features.prompts.size > 0) capabilities.prompts = {};
  if (features.prompts.size > 0 || features.templates.length > 0) capabilities.completions = {};
  return capabilities;
}

function contentsOf(
  uri: string,
  mimeType: string | undefined,
  read: ServedResourceContents | readonly ServedResourceContents[],
): ReadResourceResult {
  const list = Array.isArray(read) ? (read as readonly ServedResourceContents[]) : [read as ServedResourceContents];
  return {
    contents: list.map((item) => {
      const base = strip({ uri: item.uri ?? uri, mimeType: item.mimeType ?? mimeType });
      if ('text' in item && typeof item.text === 'string') return { ...base, text: item.text };
      if ('blob' in item && typeof item.blob === 'string') return { ...base, blob: item.blob };
      throw new McpConfigError(`serveMcp: reading "${uri}" gave contents with neither text nor blob.`);
    }) as ReadResourceResult['contents'],
  };
}

function strip<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}
