// A real headless Chromium for the browser suites: Debian's package (installed by .ci/run when
// missing), driven by playwright-core with its executable path; nothing is downloaded. Tests skip
// with a clear message only when no Chromium executable exists on the machine.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** RSNOTIFY_CHROMIUM, else the first Debian/Ubuntu Chromium found; undefined when there is none. */
export function chromiumExecutable(): string | undefined {
  const fromEnv = process.env.RSNOTIFY_CHROMIUM;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((p) => existsSync(p));
}

/** The reason to skip, or false when a browser is there (for `test(name, { skip }, ...)`). */
export function skipWithoutChromium(): string | false {
  return chromiumExecutable() === undefined
    ? `no Chromium executable (looked at ${CANDIDATES.join(', ')} and RSNOTIFY_CHROMIUM); install Debian's chromium package (.ci/run does)`
    : false;
}

// Without the background-networking flags Chromium keeps trying to reach Google's services and hangs
// on the refused connections of a machine without Internet.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchChromium(t: {
  after: (fn: () => Promise<void>) => void;
}): Promise<Browser> {
  const executablePath = chromiumExecutable();
  if (!executablePath) throw new Error('no Chromium executable');
  // playwright-core gives every launch a fresh temporary profile (--user-data-dir) and removes it.
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: FLAGS,
    timeout: 60_000,
  });
  t.after(() => browser.close());
  return browser;
}

/** test/artifacts/ (git-ignored): screenshots a person can look at after a run. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../artifacts/', import.meta.url));

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const file = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
