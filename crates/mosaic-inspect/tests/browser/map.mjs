// The inspector's map at the arena's bundled scene (100,500 entities), in headless Chromium
// (playwright-core driving Debian's /usr/bin/chromium): waits for the map to hold every positioned
// entity, measures full redraws per second (at least 10 required), clicks a point and checks that
// its entity is selected, moves the time-travel scrubber and checks the map follows, and saves a
// screenshot. Run by scripts/browser-test.sh with URL (the page, with its token) and SHOT set.
import { chromium } from 'playwright-core';

const { URL, SHOT } = process.env;
const fail = (message) => { console.error(`map-test: FAIL: ${message}`); process.exitCode = 1; };
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(URL);
  await page.waitForFunction(() => window.mapStats && window.mapStats().points >= 100000, null,
    { timeout: 120_000, polling: 500 });
  const stats = await page.evaluate(() => window.mapStats());
  const perSecond = await page.evaluate(() => window.mapBench(3000));
  console.log(`map-test: ${stats.points} points (${stats.info}); ${perSecond.toFixed(1)} full redraws a second, `
    + `last draw ${stats.drawMs.toFixed(1)} ms`);
  if (perSecond < 10) fail(`${perSecond.toFixed(1)} redraws a second, fewer than 10`);

  // Click the canvas where point 1000 is drawn: its entity (or one drawn on the same pixels)
  // becomes the selection. Paused first, with a map fetched after the pause, so the entity is
  // alive when the page asks for it (fighters die within seconds of wall time).
  await page.click('#pause');
  await page.waitForFunction(() => document.getElementById('state').textContent === 'paused', null,
    { timeout: 10_000 });
  const loads = await page.evaluate(() => window.mapStats().loads);
  await page.waitForFunction((n) => window.mapStats().loads >= n + 2, loads, { timeout: 30_000 });
  const target = await page.evaluate(() => {
    const d = window.mapStatsData(), canvas = document.getElementById('map');
    const rect = canvas.getBoundingClientRect(), i = 1000;
    const cx = 3 + (d.xs[i] - d.fit.x0) * d.fit.scale, cy = 3 + (d.ys[i] - d.fit.y0) * d.fit.scale;
    return { x: rect.left + cx * rect.width / canvas.width, y: rect.top + cy * rect.height / canvas.height,
      id: `${d.index[i]}v${d.generation[i]}`, near: d.near(cx, cy) };
  });
  await page.mouse.click(target.x, target.y);
  await page.waitForFunction((id) => document.getElementById('entity-id').textContent !== '–', target.id,
    { timeout: 30_000 });
  const selected = await page.textContent('#entity-id');
  if (!target.near.includes(selected)) fail(`clicked near ${target.id}, selected ${selected}`);
  else console.log(`map-test: clicked point ${target.id}, selected ${selected}`);
  await page.click('#resume');
  await page.waitForFunction(() => document.getElementById('state').textContent === 'running', null,
    { timeout: 10_000 });

  // At 10^5 entities the arena's 120-frame ring is over the inspector's record budget: opening
  // the page saves nothing, and the Record button is offered; pressed, it saves every frame.
  const before = await page.evaluate(async () => (await (await fetch('/api/frames/saved')).json()));
  if (before.auto || before.frames.length > 1) fail(`frames saved without recording: ${JSON.stringify(before.frames)}`);
  await page.waitForSelector('#record:not([hidden])', { timeout: 10_000 });
  await page.click('#record');
  let held = 0;
  for (let i = 0; i < 200 && held < 5; i++) {
    await page.waitForTimeout(100);
    held = await page.evaluate(async () => (await (await fetch('/api/frames/saved')).json()).frames.length);
  }
  if (held < 5) fail(`recording saved ${held} frames`);
  else console.log(`map-test: Record pressed, ${held} frames saved (none before)`);

  // The scrubber moves the map: pause (so the saved frames stay put), then pick the oldest.
  await page.click('#pause');
  await page.waitForFunction(() => document.getElementById('state').textContent === 'paused', null,
    { timeout: 10_000 });
  const frame = await page.evaluate(async () => {
    const saved = await (await fetch('/api/frames/saved')).json();
    return saved.frames[0];
  });
  if (frame != null) {
    // The page learns the held frames from its own poll: wait until its slider reaches the frame
    // (a range input clamps a value outside its min and max).
    await page.waitForFunction((f) => {
      const el = document.getElementById('scrub');
      return !el.disabled && Number(el.min) <= f && f <= Number(el.max);
    }, frame, { timeout: 30_000 });
    await page.$eval('#scrub', (el, f) => { el.value = f; el.dispatchEvent(new Event('change')); }, frame);
    await page.waitForFunction((f) => document.getElementById('map-info').textContent.includes(`frame ${f}`), frame,
      { timeout: 60_000 });
    console.log(`map-test: the map shows frame ${frame}: ${await page.textContent('#map-info')}`);
  } else {
    fail('no saved frame to scrub to');
  }
  if (SHOT) await page.screenshot({ path: SHOT });
  if (errors.length) fail(`page errors: ${errors.join('; ')}`);
} finally {
  await browser.close();
}
