// Debian's chromium, which .ci/run installs, driven by playwright-core. On a developer machine
// without it the browser tests are skipped with a notice; under CI its absence is a failure, never a
// silent skip.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.INDUSAGI_CHROMIUM ?? '/usr/bin/chromium';

/** Whether the browser is there; says why not (or throws under CI) when it is missing. */
export function haveChromium(test: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env.CI) throw new Error(`CI needs a browser for the ${test} test and ${CHROMIUM} is missing (apt-get install chromium).`);
  console.warn(`[indusagi] skipping the ${test} browser test: ${CHROMIUM} not found (apt-get install chromium, or set INDUSAGI_CHROMIUM).`);
  return false;
}

/** Headless Chromium with nothing running in the background; `args` adds flags. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  });
}
