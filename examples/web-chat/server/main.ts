// `npx tsx examples/web-chat/server/main.ts`: builds the page, then serves the chat on
// http://127.0.0.1:5174 (PORT overrides): the agent server (`indusagi/server`) and the page in one
// process. With ANTHROPIC_API_KEY set it talks to Claude (INDUSAGI_MODEL picks the model); without it,
// to the offline demo model. Conversations are files under WEB_CHAT_DATA, or, with
// INDUSAGI_DATABASE_URL set, rows in PostgreSQL (schema INDUSAGI_DATABASE_SCHEMA, default `indusagi`)
// shared by every server pointed at it.
import Anthropic from '@anthropic-ai/sdk';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { DEMO_MODEL_ID, startDemoModel } from 'indusagi/testing';
import { startWebChat } from './app.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const dataDir = process.env.WEB_CHAT_DATA ?? join(tmpdir(), 'indusagi-web-chat');
const pageDir = join(dataDir, 'page');
const workspaceDir = join(dataDir, 'workspace');
await mkdir(workspaceDir, { recursive: true });
await build({ configFile: join(here, '..', 'vite.config.ts'), build: { outDir: pageDir, emptyOutDir: true }, logLevel: 'warn' });

const database = process.env.INDUSAGI_DATABASE_URL || undefined;
const demo = process.env.ANTHROPIC_API_KEY ? null : await startDemoModel();
// A database that is unreachable or not migrated stops the server here, before it serves anything.
const chat = await startWebChat({
  pageDir,
  dataDir: join(dataDir, 'server'),
  database,
  schema: process.env.INDUSAGI_DATABASE_SCHEMA || undefined,
  workspaceDir,
  client: demo ? new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo' }) : new Anthropic(),
  model: demo ? DEMO_MODEL_ID : (process.env.INDUSAGI_MODEL ?? 'claude-sonnet-5-5'),
  port: Number(process.env.PORT ?? 5174),
});
const where = database
  ? `conversations in PostgreSQL schema ${process.env.INDUSAGI_DATABASE_SCHEMA || 'indusagi'}`
  : 'conversations in files';
console.log(`web chat on ${chat.url} (${demo ? 'offline demo model' : 'Anthropic API'}); ${where}; data in ${dataDir}`);

// Closing stops taking runs and lets those under way end (a run cut off is taken over by another
// server's worker once its lease expires), so a redeploy's SIGTERM gets the same as Ctrl-C.
async function shutdown(): Promise<void> {
  await chat.close();
  await demo?.close();
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('[web-chat] shutting down failed:', error);
        process.exit(1);
      },
    );
  });
}
