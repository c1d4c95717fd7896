import { readFileSync } from 'node:fs';

let version: string | undefined;

/** This package's version, for the name a client or server gives in the handshake. src/mcp and dist/mcp both sit two folders below package.json. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return version;
}
