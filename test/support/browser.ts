/** Headless Debian Chromium driven by playwright-core, with the flags that keep it off the network. */
import { chromium, type Browser } from 'playwright-core';
import { testEnv } from './env';

/** `extraArgs`: more Chromium switches (the production profile's suite trusts its certificate's key with one). */
export async function withBrowser<T>(fn: (browser: Browser) => Promise<T>, extraArgs: string[] = []): Promise<T> {
  const browser = await chromium.launch({
    executablePath: testEnv.chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extraArgs,
    ],
  });
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}
