import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpConfigError } from './errors.js';

/** A server spawned as a child process and spoken to over its stdin and stdout. */
export type McpStdioServer = {
  command: string;
  args?: readonly string[];
  /**
   * Variables for the server, on top of the few every server inherits (the SDK's list: `HOME`, `PATH`,
   * `SHELL`, `TERM`, `USER`, `LOGNAME`); the rest of your environment, secrets included, stays out.
   */
  env?: Readonly<Record<string, string>>;
  cwd?: string;
  /**
   * The server's stderr: `'keep'` (default) holds its last 8 KiB for error messages and `status()`,
   * `'inherit'` writes it to this process's stderr, `'ignore'` drops it.
   */
  stderr?: 'keep' | 'inherit' | 'ignore';
  /** The largest message the server may send, in bytes; a bigger one ends the connection. Default 64 MiB. */
  maxMessageBytes?: number;
};

/** A server reached over Streamable HTTP (or, for old servers, HTTP with SSE). */
export type McpHttpServer = {
  url: string | URL;
  /** Sent with every request (an API key, say). */
  headers?: Readonly<Record<string, string>>;
  /** OAuth for the server, as the SDK defines it: tokens, client registration, the redirect to authorize. */
  authProvider?: OAuthClientProvider;
  /**
   * The authorization code, once the user authorized: asked after `authProvider.redirectToAuthorization`,
   * then the connection is made again with the tokens the code buys.
   */
  authorizationCode?: () => Promise<string>;
  /** `'streamable-http'`, `'sse'` (the 2024-11-05 transport), or `'auto'` (default): Streamable HTTP, then SSE if the server refuses it. */
  transport?: 'auto' | 'streamable-http' | 'sse';
  /** The fetch to use instead of the global one. */
  fetch?: typeof fetch;
};

/** What the client knows about one of a server's tools, for filters and approval rules. */
export type McpToolInfo = {
  /** The server's name for it, as configured. */
  server: string;
  /** The tool's own name on its server. */
  name: string;
  title?: string;
  description: string;
  inputSchema: object;
  outputSchema?: object;
  annotations?: McpToolAnnotations;
};

/** The hints a server gives about a tool (hints only: a server may say anything). */
export type McpToolAnnotations = {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

/** How a server's tools become the agent's tools. */
export type McpToolOptions = {
  /** Which tools to take: their names on the server, or a predicate. Default: all of them. */
  tools?: readonly string[] | ((tool: McpToolInfo) => boolean);
  /**
   * Which calls wait for a person's approval: every tool of the server (`true`), none (`false`), per
   * tool name, or a function (`undefined` from it, or a name left out of the record, falls back to the
   * default). Default: a tool needs approval unless it says it is read-only or says it is not destructive.
   */
  needsApproval?: boolean | Readonly<Record<string, boolean>> | ((tool: McpToolInfo) => boolean | undefined);
  /** How long one call may take, in milliseconds, before it is cancelled; progress from the server restarts the clock. Default 60,000. */
  timeoutMs?: number;
  /**
   * The longest one call may take in all, in milliseconds, however much progress the server reports (the
   * MCP spec asks clients for such a cap: a server that reports progress forever would otherwise hold the
   * call forever). Default ten times `timeoutMs`.
   */
  maxTotalTimeoutMs?: number;
  /** The most characters of one result the model gets; the rest is cut off with a note. Default 100,000. */
  maxResultChars?: number;
};

/** One server: where it is, and how its tools are taken. */
export type McpServerConfig = (McpStdioServer | McpHttpServer) & McpToolOptions;

export const DEFAULT_TIMEOUT_MS = 60_000;
/** `maxTotalTimeoutMs` when a server's config gives none: this many times its `timeoutMs`. */
export const DEFAULT_MAX_TOTAL_FACTOR = 10;
export const DEFAULT_MAX_RESULT_CHARS = 100_000;
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

// The dot separates the server from the tool in a namespaced name, so a server name has none.
const SERVER_NAME = /^[A-Za-z0-9_-]{1,48}$/;

export function isStdio(config: McpServerConfig): config is McpStdioServer & McpToolOptions {
  return 'command' in config;
}

/** Checks a server's name and description before anything is spawned; throws `McpConfigError` saying what is wrong. */
export function checkServerConfig(name: unknown, config: unknown): McpServerConfig {
  if (typeof name !== 'string' || !SERVER_NAME.test(name)) {
    throw new McpConfigError(
      `MCP server name ${JSON.stringify(name)} must be 1 to 48 letters, digits, "_" or "-" (it prefixes its tools' names, as "name.tool").`,
    );
  }
  const where = `MCP server "${name}"`;
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new McpConfigError(`${where} needs { command } or { url }.`);
  const c = config as Record<string, unknown>;
  if ('command' in c === 'url' in c)
    throw new McpConfigError(`${where} needs exactly one of command (a process to spawn) and url (a server to reach).`);
  if ('command' in c) {
    if (typeof c.command !== 'string' || c.command.trim() === '') throw new McpConfigError(`${where}: command must be a non-empty string.`);
    if (c.args !== undefined && !(Array.isArray(c.args) && c.args.every((arg) => typeof arg === 'string')))
      throw new McpConfigError(`${where}: args must be an array of strings.`);
    checkStringRecord(c.env, `${where}: env`);
    if (c.cwd !== undefined && typeof c.cwd !== 'string') throw new McpConfigError(`${where}: cwd must be a string.`);
    if (c.stderr !== undefined && !['keep', 'inherit', 'ignore'].includes(c.stderr as string))
      throw new McpConfigError(`${where}: stderr must be "keep", "inherit" or "ignore".`);
    checkPositive(c.maxMessageBytes, `${where}: maxMessageBytes`);
  } else {
    let url: URL;
    try {
      url = new URL(c.url as string);
    } catch {
      throw new McpConfigError(`${where}: url ${JSON.stringify(c.url)} is not a URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new McpConfigError(`${where}: url must be http or https, not ${url.protocol}`);
    checkStringRecord(c.headers, `${where}: headers`);
    if (c.transport !== undefined && !['auto', 'streamable-http', 'sse'].includes(c.transport as string))
      throw new McpConfigError(`${where}: transport must be "auto", "streamable-http" or "sse".`);
    if (c.authorizationCode !== undefined && typeof c.authorizationCode !== 'function')
      throw new McpConfigError(`${where}: authorizationCode must be a function.`);
    if (c.authProvider !== undefined && (typeof c.authProvider !== 'object' || c.authProvider === null))
      throw new McpConfigError(`${where}: authProvider must be an OAuthClientProvider.`);
    if (c.fetch !== undefined && typeof c.fetch !== 'function') throw new McpConfigError(`${where}: fetch must be a function.`);
  }
  const tools = c.tools;
  if (tools !== undefined && typeof tools !== 'function' && !(Array.isArray(tools) && tools.every((t) => typeof t === 'string')))
    throw new McpConfigError(`${where}: tools must be an array of tool names or a function.`);
  const approval = c.needsApproval;
  if (approval !== undefined && typeof approval !== 'boolean' && typeof approval !== 'function') {
    if (
      typeof approval !== 'object' ||
      approval === null ||
      Array.isArray(approval) ||
      !Object.values(approval).every((v) => typeof v === 'boolean')
    )
      throw new McpConfigError(`${where}: needsApproval must be a boolean, a record of tool name -> boolean, or a function.`);
  }
  checkPositive(c.timeoutMs, `${where}: timeoutMs`);
  checkPositive(c.maxTotalTimeoutMs, `${where}: maxTotalTimeoutMs`);
  checkPositive(c.maxResultChars, `${where}: maxResultChars`);
  return config as McpServerConfig;
}

function checkStringRecord(value: unknown, what: string): void {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string'))
    throw new McpConfigError(`${what} must be an object of string values.`);
}

function checkPositive(value: unknown, what: string): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new McpConfigError(`${what} must be a whole number >= 1.`);
}

/**
 * The servers of an `mcpServers` file, the format Claude Desktop, Claude Code and other clients read:
 * `{ "mcpServers": { name: { command, args?, env?, cwd? } | { url, headers? } } }`, with an optional
 * `type` (`stdio`, `http`, `streamable-http`, `sse`) and `"disabled": true` to leave a server out.
 * `${VAR}` and `${VAR:-default}` in strings are read from `env`, as Claude Code does; an unset variable
 * without a default is an error. Other keys are other clients' and are ignored. Throws `McpConfigError`
 * naming `where` (the file) and the server.
 */
export function parseMcpServers(
  json: unknown,
  where: string,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, McpServerConfig> {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new McpConfigError(`${where}: expected a JSON object with "mcpServers".`);
  const servers = (json as { mcpServers?: unknown }).mcpServers;
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    throw new McpConfigError(`${where}: "mcpServers" must be an object of server name -> { command } or { url }.`);
  const out: Record<string, McpServerConfig> = {};
  for (const [name, raw] of Object.entries(servers)) {
    const at = `${where}, server "${name}"`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new McpConfigError(`${at}: expected an object.`);
    const entry = raw as Record<string, unknown>;
    if (entry.disabled === true) continue;
    const expand = (value: unknown, field: string): unknown => expandVariables(value, env, `${at}, ${field}`);
    const type = entry.type;
    if (type !== undefined && !['stdio', 'http', 'streamable-http', 'sse'].includes(type as string))
      throw new McpConfigError(`${at}: type must be "stdio", "http", "streamable-http" or "sse".`);
    let config: Record<string, unknown>;
    if (type === 'stdio' || (type === undefined && 'command' in entry)) {
      config = { command: expand(entry.command, 'command') };
      if (entry.args !== undefined) config.args = expand(entry.args, 'args');
      if (entry.env !== undefined) config.env = expand(entry.env, 'env');
      if (entry.cwd !== undefined) config.cwd = expand(entry.cwd, 'cwd');
    } else {
      config = { url: expand(entry.url, 'url') };
      if (entry.headers !== undefined) config.headers = expand(entry.headers, 'headers');
      if (type === 'sse') config.transport = 'sse';
      else if (type !== undefined) config.transport = 'streamable-http';
    }
    try {
      out[name] = checkServerConfig(name, config);
    } catch (error) {
      throw new McpConfigError(`${where}: ${(error as Error).message}`, { cause: error });
    }
  }
  return out;
}

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function expandVariables(value: unknown, env: Readonly<Record<string, string | undefined>>, what: string): unknown {
  if (typeof value === 'string') {
    return value.replace(VARIABLE, (_all, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new McpConfigError(`${what}: the variable ${name} is not set, and \${${name}} has no default (write \${${name}:-default}).`);
    });
  }
  if (Array.isArray(value)) return value.map((item) => expandVariables(item, env, what));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expandVariables(item, env, `${what}.${key}`)]));
  }
  return value;
}
