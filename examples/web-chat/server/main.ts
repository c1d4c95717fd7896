// `npx tsx examples/web-chat/server/main.ts`: builds the page, then serves the chat on
// http://127.0.0.1:5174 (PORT overrides). With ANTHROPIC_API_KEY set it talks to Claude
// (INDUSAGI_MODEL picks the model); without it, to the offline demo model.
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

const demo = process.env.ANTHROPIC_API_KEY ? null : await startDemoModel();
const chat = await startWebChat({
  pageDir,
  sessionsDir: join(dataDir, 'sessions'),
  workspaceDir,
  client: demo ? new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo' }) : new Anthropic(),
  model: demo ? DEMO_MODEL_ID : (process.env.INDUSAGI_MODEL ?? 'claude-sonnet-5-5'),
  port: Number(process.env.PORT ?? 5174),
});
console.log(`web chat on ${chat.url} (${demo ? 'offline demo model' : 'Anthropic API'}); data in ${dataDir}`);

process.once('SIGINT', () => {
  void chat.close().then(() => demo?.close()).then(() => process.exit(0));
});
