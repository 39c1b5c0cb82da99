// Loads the arena page in headless Chromium (playwright-core driving Debian's /usr/bin/chromium),
// waits for frame FRAMES, checks the checksum the page shows against EXPECTED (the native run's),
// measures the page's frame rate and the wasm step time, saves a screenshot to SHOT, and checks
// that bad URL parameters are shown on the page as errors naming the parameter.
// Run by scripts/web-test.sh, which sets the environment:
//   URL, FRAMES, EXPECTED, optionally SHOT (no screenshot without it) and CHROMIUM (default
//   /usr/bin/chromium).
import { chromium } from 'playwright-core';

const { URL, FRAMES, EXPECTED, SHOT } = process.env;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 880 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(URL);
  await page.waitForSelector(`#checksum[data-frame="${FRAMES}"]`, { timeout: 600_000 });
  const checksum = (await page.textContent('#checksum')).trim();
  // Frame rate and step time over 5 s of running.
  await page.waitForTimeout(5_000);
  const stats = await page.evaluate(() => window.arenaStats());
  if (SHOT) await page.screenshot({ path: SHOT });
  console.log(`page: checksum at frame ${FRAMES} ${checksum}; native ${EXPECTED}`);
  console.log(`page: ${stats.entities} entities at frame ${stats.frame}; ${stats.fps} frames a second; ` +
    `wasm step ${stats.stepMsToTarget.toFixed(2)} ms (median of frames 1-${FRAMES}), ` +
    `draw ${stats.drawMs.toFixed(2)} ms (median of the last 60)`);
  console.log(`STATS ${JSON.stringify(stats)}`);
  if (errors.length) { console.error(`page errors: ${errors.join('; ')}`); failed = true; }
  if (checksum !== EXPECTED) { console.error('the checksum differs from the native run'); failed = true; }
  // Bad URL parameters: the page shows the error naming the parameter (PageParams.parse).
  for (const [query, expected] of [
    ['entities=4294967396', 'entities: 4294967396 is above'],
    ['entities=abc', 'entities: `abc` is not a whole number'],
    ['entities=Infinity', 'entities: `Infinity` is not a whole number'],
    ['seed=abc', 'seed: `abc` is not a whole number'],
  ]) {
    const bad = await browser.newPage();
    await bad.goto(`${URL.split('?')[0]}?${query}`);
    await bad.waitForFunction(() => document.getElementById('error').textContent !== '', null,
      { timeout: 30_000 });
    const shown = await bad.textContent('#error');
    console.log(`page: ?${query}: ${shown}`);
    if (!shown.includes(expected)) { console.error(`?${query}: expected "${expected}"`); failed = true; }
    await bad.close();
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
