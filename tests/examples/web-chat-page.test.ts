// The web example as a chat app people use every day: GFM markdown with highlighted, copyable code,
// a message box that sends on Enter, an empty state, copy / regenerate / edit with versions, tool cards
// from the moment a call runs, conversations renamed and deleted, light and dark, checked by axe-core
// at a desktop and a phone size. The Vite-built page in headless Chromium against the example's server
// and the offline demo model; screenshots of each state go to test-results/web-chat (git-ignored).
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoModel, type DemoModel } from '../../src/demo/index.js';
import { migrateServer } from '../../src/server/index.js';
import type { WebChat } from '../../examples/web-chat/server/app.js';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';
import { startExampleChat } from '../support/web-chat-api.js';

const repo = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const exampleDir = join(repo, 'examples/web-chat');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const SHOTS = process.env.INDUSAGI_SCREENSHOTS ?? join(repo, 'test-results', 'web-chat');
const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

const PLAN = `# Plan

| step | owner | done |
| --- | --- | --- |
| design | Ana | yes |
| build | Bo | no |

\`\`\`ts
const answer: number = 42; // the answer
export function greet(name: string) {
  return \`hello \${name}\`;
}
\`\`\`

- [x] ship it
- ~~wait~~
`;
const PLAN_CODE = 'const answer: number = 42; // the answer\nexport function greet(name: string) {\n  return `hello ${name}`;\n}';

let dir: string;
let demo: DemoModel;
let browser: Browser;

beforeAll(async () => {
  if (!haveChromium('web-chat page')) return;
  dir = await mkdtemp(join(tmpdir(), 'indusagi-web-chat-page-'));
  await mkdir(join(dir, 'workspace'));
  await writeFile(join(dir, 'workspace', 'plan.md'), PLAN);
  await mkdir(SHOTS, { recursive: true });
  [browser] = await Promise.all([
    launchChromium(),
    build({ configFile: join(exampleDir, 'vite.config.ts'), build: { outDir: join(dir, 'page'), emptyOutDir: true }, logLevel: 'error' }),
  ]);
  demo = await startDemoModel({ chunkDelayMs: 1 });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A browser profile of its own (its own cookie), allowed to use the clipboard, in the given colour scheme. */
async function visit(
  chat: WebChat,
  colorScheme: 'light' | 'dark' = 'light',
  size = SIZES.desktop,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ colorScheme, viewport: size, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  // A guard against a hang, not a deadline: the page waits on what it shows.
  page.setDefaultTimeout(180_000);
  await page.goto(chat.url);
  await messageBox(page).waitFor();
  return { context, page };
}

const messageBox = (page: Page) => page.getByRole('textbox', { name: 'Message', exact: true });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });
const replies = (page: Page) => page.locator('li[data-role="assistant"]');
const prompts = (page: Page) => page.locator('li[data-role="user"] .bubble');

async function say(page: Page, text: string): Promise<void> {
  await messageBox(page).fill(text);
  await messageBox(page).press('Enter');
}

/** The turn is over and the thread was read back from the server: every message carries what the server knows of it. */
async function settled(page: Page): Promise<void> {
  await sendButton(page).waitFor();
  await expect
    .poll(() => page.locator('li[data-role="user"]:not([data-synced]), li[data-role="assistant"]:not([data-synced])').count())
    .toBe(0);
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** axe-core in the page: the violations rated serious or critical (colour contrast, names, labels, ...). */
async function seriousViolations(page: Page): Promise<Array<{ id: string; nodes: string[] }>> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const results = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> };
      }
    ).axe;
    return (await axe.run()).violations;
  });
  return results
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, nodes: violation.nodes.map((node) => node.target.join(' ')) }));
}

describe.skipIf(!haveChromium('web-chat page'))('the web chat page, on files', () => {
  let chat: WebChat;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    chat = await startExampleChat(dir, demo);
    ({ context, page } = await visit(chat));
  });
  afterAll(async () => {
    await context?.close();
    await chat?.close();
  });

  it('an empty conversation offers example prompts; one click sends it', async () => {
    await expect.poll(() => page.getByRole('heading', { name: 'What can I help with?' }).isVisible()).toBe(true);
    // The tab has an icon of its own, inline: no request for a /favicon.ico the server does not have.
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/);
    await shoot(page, 'empty-desktop-light');
    await page.getByRole('button', { name: /List the files/ }).click();
    await page.locator('[data-tool="files.list"][data-state="done"]').waitFor();
    await settled(page);
    expect(await prompts(page).allTextContents()).toEqual(['list files']);
    expect(await page.getByRole('heading', { name: 'What can I help with?' }).count()).toBe(0);
  });

  it('the message box sends on Enter, starts a new line on Shift+Enter, and grows with what is typed', async () => {
    const box = messageBox(page);
    const before = (await box.boundingBox())!.height;
    await box.fill('first line');
    await box.press('Shift+Enter');
    await box.press('Shift+Enter');
    await box.pressSequentially('third line');
    expect(await box.inputValue()).toBe('first line\n\nthird line');
    expect((await box.boundingBox())!.height).toBeGreaterThan(before);
    expect(await prompts(page).count()).toBe(1);

    await box.press('Enter');
    await expect.poll(() => prompts(page).count()).toBe(2);
    expect(await prompts(page).last().innerText()).toBe('first line\n\nthird line');
    expect(await box.inputValue()).toBe('');
    await settled(page);
    expect((await box.boundingBox())!.height).toBe(before);
  });

  it('renders GFM: a table as a table, task lists, strikethrough, and highlighted code whose button copies it', async () => {
    await say(page, 'read plan.md');
    await settled(page);
    const reply = replies(page).last();
    const table = reply.locator('.text table');
    expect(await table.locator('th').allTextContents()).toEqual(['step', 'owner', 'done']);
    expect(await table.locator('tbody tr').count()).toBe(2);
    expect((await reply.locator('.text').allInnerTexts()).join('\n')).not.toContain('| --- |');
    expect(await reply.locator('.text del').textContent()).toBe('wait');
    expect(await reply.locator('.text input[type="checkbox"]').isChecked()).toBe(true);

    const code = reply.locator('.code-block').first();
    // highlight.js is loaded with the first code block; its tokens become spans, the text stays the code.
    await code.locator('.hljs-keyword').first().waitFor();
    expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await code.locator('pre').innerText()).toBe(PLAN_CODE);
    await code.getByRole('button', { name: 'Copy code' }).click();
    await code.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await clipboard(page)).toBe(PLAN_CODE);
    await shoot(page, 'markdown-desktop-light');
  });

  it('copies a prompt and a reply', async () => {
    await page.locator('li[data-role="user"]').last().getByRole('button', { name: 'Copy message' }).click();
    expect(await clipboard(page)).toBe('read plan.md');
    await replies(page).first().getByRole('button', { name: 'Copy reply' }).click();
    expect(await clipboard(page)).toMatch(/^\(offline demo model\) Listing \.\.[\s\S]*holds:/);
  });

  it('regenerate answers the last prompt again; the arrows switch between the two replies', async () => {
    await say(page, 'what time is it?');
    await settled(page);
    const said = () => replies(page).last().locator('.text, .tool').allInnerTexts();
    const first = await said();
    expect(await replies(page).last().getByRole('group', { name: 'Versions' }).count()).toBe(0);
    // Only the last reply can be answered again.
    expect(await replies(page).first().getByRole('button', { name: 'Regenerate reply' }).count()).toBe(0);

    await replies(page).last().getByRole('button', { name: 'Regenerate reply' }).click();
    await expect.poll(() => replies(page).last().getByRole('group', { name: 'Versions' }).innerText()).toMatch(/2\s*\/\s*2/);
    await settled(page);
    const count = await prompts(page).count();
    expect(await prompts(page).last().textContent()).toBe('what time is it?');

    await replies(page).last().getByRole('button', { name: 'Previous version' }).click();
    await expect.poll(() => replies(page).last().getByRole('group', { name: 'Versions' }).innerText()).toMatch(/1\s*\/\s*2/);
    expect(await said()).toEqual(first);
    expect(await prompts(page).count()).toBe(count);
    await page.reload();
    await messageBox(page).waitFor();
    await expect.poll(() => replies(page).last().getByRole('group', { name: 'Versions' }).innerText()).toMatch(/1\s*\/\s*2/);
  });

  it('edit a past prompt and resend: the thread branches there, and the old branch is one arrow away', async () => {
    const before = await prompts(page).allTextContents();
    // Every prompt can be edited, the first one too (it starts a new root).
    expect(await page.locator('li[data-role="user"]').first().getByRole('button', { name: 'Edit message' }).count()).toBe(1);

    const second = page.locator('li[data-role="user"]').nth(1);
    await second.getByRole('button', { name: 'Edit message' }).click();
    const editor = page.getByRole('textbox', { name: 'Edit message' });
    await expect.poll(() => editor.inputValue()).toBe(before[1]);
    await editor.fill('list files again');
    await page.getByRole('button', { name: 'Save and send' }).click();
    await expect.poll(() => prompts(page).allTextContents()).toEqual([before[0], 'list files again']);
    await settled(page);
    const edited = page.locator('li[data-role="user"]').nth(1);
    expect(await edited.getByRole('group', { name: 'Versions' }).innerText()).toMatch(/2\s*\/\s*2/);
    await shoot(page, 'edited-desktop-light');

    await edited.getByRole('button', { name: 'Previous version' }).click();
    await expect.poll(() => prompts(page).allTextContents()).toEqual(before);
    await page.locator('li[data-role="user"]').nth(1).getByRole('button', { name: 'Next version' }).click();
    await expect.poll(() => prompts(page).allTextContents()).toEqual([before[0], 'list files again']);
  });

  it('approve from the card: it waits for the decision (nothing else can be sent meanwhile), then says how it ended', async () => {
    await say(page, 'write hello to notes.txt');
    const card = page.locator('[data-tool="files.write"]').last();
    await card.getByRole('button', { name: 'Approve' }).waitFor();
    await settled(page);
    expect(await card.getAttribute('data-state')).toBe('waiting');
    // Nothing else can be sent while a call waits for the user.
    expect(await page.locator('#composer-hint').textContent()).toBe('Approve or reject the call above to go on.');
    await shoot(page, 'approval-desktop-light');
    await card.getByRole('button', { name: 'Approve' }).click();
    await card.locator('[data-outcome="written"]').waitFor();
    await settled(page);
    expect(await card.getAttribute('data-state')).toBe('done');
  });

  it('renames and deletes conversations from the list, each asked in place first', async () => {
    const nav = page.getByRole('navigation', { name: 'Conversations' });
    const firstTitle = (await nav.getByRole('link').first().textContent())!;
    await nav.getByRole('button', { name: `Rename ${firstTitle}` }).click();
    const name = nav.getByRole('textbox', { name: 'Conversation name' });
    await expect.poll(() => name.inputValue()).toBe(firstTitle);
    await name.fill('Plans and files');
    await name.press('Enter');
    await nav.getByRole('link', { name: 'Plans and files' }).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Plans and files');

    // A second conversation, then delete the one on screen: the list moves to the other.
    await nav.getByRole('button', { name: 'New conversation' }).click();
    await expect
      .poll(() => page.evaluate(() => location.hash))
      .toMatch(/^#c=[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    await say(page, 'what time is it?');
    await settled(page);
    await expect.poll(() => nav.getByRole('link').allTextContents()).toEqual(['what time is it?', 'Plans and files']);
    await nav.getByRole('button', { name: 'Delete what time is it?' }).click();
    await shoot(page, 'delete-desktop-light');
    await nav.getByRole('button', { name: 'Cancel' }).click();
    await nav.getByRole('button', { name: 'Delete what time is it?' }).click();
    await nav.getByRole('button', { name: 'Delete', exact: true }).click();
    await expect.poll(() => nav.getByRole('link').allTextContents()).toEqual(['Plans and files']);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Plans and files');

    await page.reload();
    await messageBox(page).waitFor();
    await expect.poll(() => nav.getByRole('link').allTextContents()).toEqual(['Plans and files']);
  });

  it("a sub-agent's own calls and text show inside the card of the call that asked it, stay there once the reply ends, and after a reload", async () => {
    await say(page, 'ask the researcher to read plan.md');
    const asked = replies(page).last().locator('[data-tool="researcher"]');
    // The researcher's read, as a card of its own inside the researcher's card, done with the file's text.
    const read = asked.locator('[data-tool="files.read"][data-state="done"]');
    await read.waitFor();
    expect(await read.locator('.tool-title').innerText()).toBe('Read plan.md');
    expect(await read.locator('.tool-output pre').textContent()).toContain('| design | Ana | yes |');
    await settled(page);
    expect(await asked.getAttribute('data-state')).toBe('done');
    // Read back from the server after the turn, the reply keeps the researcher's work under its call, in
    // the order it happened (its text, its read, its answer quoting the file), and nowhere else.
    const work = asked.getByRole('group', { name: 'What researcher did' });
    expect(await work.locator(':scope > *').evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual([
      'text',
      'tool done',
      'text',
    ]);
    expect(await work.locator(':scope > .text').last().innerText()).toContain('plan.md reads:');
    expect(await work.locator(':scope > .text table th').allTextContents()).toEqual(['step', 'owner', 'done']);
    expect(await read.count()).toBe(1);
    const topCards = replies(page).last().locator(':scope > .tool');
    expect(await topCards.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tool')))).toEqual(['researcher']);
    // The agent's result ({ sessionId, answer }) is not shown as its JSON: the answer is the run's last text.
    expect(await asked.locator(':scope > .tool-output').count()).toBe(0);
    expect(await asked.innerText()).not.toContain('sessionId');
    expect(await seriousViolations(page)).toEqual([]);
    await shoot(page, 'subagent-desktop-light');
    // As rendered (an empty style attribute a checkbox got while live set aside).
    const html = async (group: typeof work) => (await group.innerHTML()).replaceAll(' style=""', '');
    const live = await html(work);
    // Reloaded, the researcher's run is rebuilt from its own session: the same card, its work in the
    // same order, rendered the same (its read's output is the text the model was sent, the same here).
    await page.reload();
    await messageBox(page).waitFor();
    const reread = replies(page).last().locator('[data-tool="researcher"]');
    const rebuilt = reread.getByRole('group', { name: 'What researcher did' });
    await rebuilt.waitFor();
    expect(await rebuilt.locator(':scope > *').evaluateAll((nodes) => nodes.map((node) => node.className))).toEqual([
      'text',
      'tool done',
      'text',
    ]);
    // Code blocks are highlighted once the highlighter has loaded, a moment after the text is shown:
    // waited for, not sampled (a busy machine showed the rebuilt card before its highlighting).
    await expect.poll(() => html(rebuilt)).toBe(live);
    expect(await reread.locator('[data-tool="files.read"] .tool-output pre').textContent()).toContain('| design | Ana | yes |');
    expect(await reread.locator('.tool-answer').count()).toBe(0);
    expect(await reread.innerText()).not.toContain('sessionId');
  });

  it('the keyboard reaches the controls, and focus shows', async () => {
    // From the top of the page, whatever the test before left focused: Tab starts where the page was last
    // clicked, here its corner, where no control is (the body itself cannot take focus).
    await page.mouse.click(1, 1);
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const active = document.activeElement as HTMLElement;
      return { text: active.textContent?.trim(), outline: getComputedStyle(active).outlineStyle };
    });
    expect(focused).toEqual({ text: 'New conversation', outline: 'solid' });
    await messageBox(page).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Regenerate reply');
  });

  it('follows the system colour scheme, and axe-core finds nothing serious in either, on a desktop and a phone', async () => {
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await background()).toBe('rgb(17, 19, 24)');

    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        // Scrolled to the top: the table, the code and the cards are all in the thread.
        expect(await seriousViolations(page), `${size} ${scheme}`).toEqual([]);
        await shoot(page, `conversation-${size}-${scheme}`);
      }
    }
    // The phone's list is a drawer; open, it is checked too.
    await page.getByRole('button', { name: 'Conversations' }).click();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('link').first().waitFor({ state: 'visible' });
    expect(await page.getByRole('button', { name: 'Conversations' }).getAttribute('aria-expanded')).toBe('true');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page), `drawer ${scheme}`).toEqual([]);
      await shoot(page, `drawer-phone-${scheme}`);
    }
    await page.getByRole('button', { name: 'Close the conversation list' }).click();
    await page.getByRole('navigation', { name: 'Conversations' }).waitFor({ state: 'hidden' });

    // The empty state, at both sizes and in both schemes.
    await page.getByRole('button', { name: 'Conversations' }).click();
    await page.getByRole('button', { name: 'New conversation' }).click();
    await page.getByRole('heading', { name: 'What can I help with?' }).waitFor();
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await seriousViolations(page), `empty ${size} ${scheme}`).toEqual([]);
        await shoot(page, `empty-${size}-${scheme}`);
      }
    }
    const layout = await page.evaluate(() => ({ wide: document.documentElement.scrollWidth, width: window.innerWidth }));
    expect(layout.wide).toBeLessThanOrEqual(layout.width);
  });
});

describe.skipIf(!haveChromium('web-chat page') || postgresUrl === undefined)('the web chat page, on PostgreSQL', () => {
  const pool = testPool();
  const schema = freshSchema('webpage');
  let chat: WebChat;

  beforeAll(async () => {
    await migrateServer(postgresUrl!, { schema });
    // The same built page; the agent server's tables (and each browser's memory) in PostgreSQL.
    await mkdir(join(dir, 'pg', 'workspace'), { recursive: true });
    await symlink(join(dir, 'page'), join(dir, 'pg', 'page'));
    chat = await startExampleChat(join(dir, 'pg'), demo, { url: postgresUrl!, schema });
  });
  afterAll(async () => {
    await chat?.close();
  });

  it('shows a tool card from the moment its call runs (here: a save held up by a table lock), then how it ended', async () => {
    const { context, page } = await visit(chat, 'light');
    const lock = await pool.connect();
    try {
      await lock.query('BEGIN');
      await lock.query(`LOCK TABLE ${schema}.memory_records IN EXCLUSIVE MODE`);
      await say(page, 'remember that the spare lamps are in the cellar');
      const card = page.locator('[data-tool="memory.remember"]');
      await card.locator('.spinner').waitFor();
      expect(await card.getAttribute('data-state')).toBe('running');
      expect(await card.locator('.tool-state').textContent()).toBe('Running…');
      expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(1);
      await shoot(page, 'tool-running-desktop-light');
      await lock.query('COMMIT');
      await page.locator('[data-tool="memory.remember"][data-state="done"]').waitFor();
      await settled(page);
    } finally {
      await lock.query('ROLLBACK').catch(() => undefined);
      lock.release();
      await context.close();
    }
  });

  it('two browsers: what one asked to remember, the other cannot recall (issue 27, item 5)', async () => {
    const a = await visit(chat, 'light');
    const b = await visit(chat, 'dark');
    try {
      await say(a.page, 'remember my bank pin is 4321');
      await a.page.locator('[data-tool="memory.remember"][data-state="done"]').waitFor();
      await settled(a.page);

      await say(b.page, 'what do you remember about my bank pin?');
      await b.page.locator('[data-tool="memory.recall"][data-state="done"]').waitFor();
      await settled(b.page);
      expect(await replies(b.page).last().innerText()).not.toContain('4321');
      expect(await replies(b.page).last().innerText()).toContain('Nothing in memory matches');

      await say(a.page, 'what do you remember about my bank pin?');
      await a.page.locator('[data-tool="memory.recall"][data-state="done"]').last().waitFor();
      await settled(a.page);
      expect(await replies(a.page).last().innerText()).toContain('my bank pin is 4321');
    } finally {
      await a.context.close();
      await b.context.close();
    }
  });
});
