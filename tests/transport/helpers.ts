// Setup shared by the transport tests.
import { afterEach } from 'vitest';
import type { AgentPart } from '../../src/parts/index.js';

/** A list the test pushes servers onto; every server in it is closed after each test. */
export function serversClosedAfterEach(): Array<{ close: () => Promise<void> }> {
  const servers: Array<{ close: () => Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return servers;
}

/** Reads every part, keeping the error (if any) that ended the stream instead of throwing it. */
export async function collect(iterable: AsyncIterable<AgentPart>): Promise<{ parts: AgentPart[]; error?: unknown }> {
  const parts: AgentPart[] = [];
  try {
    for await (const part of iterable) parts.push(part);
    return { parts };
  } catch (error) {
    return { parts, error };
  }
}
