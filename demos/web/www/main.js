// The arena in the page: one simulation frame per animation frame, drawn into the canvas.
// Readouts: the wasm step time and the draw time (medians of the last 60 frames), the page's
// frames per second (animation frames drawn in the last second), and the checksum at frame
// `frames` (the same as `arena --frames N --seed S --entities E` prints natively).
// The URL's `entities`, `seed` and `frames` are read by the wasm module (`PageParams.parse`)
// with the command line's checks; a bad value stops the page with its message in #error.
import init, { PageParams, WebArena } from './pkg/mosaic_web.js';

const $ = (id) => document.getElementById(id);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[sorted.length >> 1] : NaN;
};

async function start() {
  await init();
  const params = PageParams.parse(location.search);
  const target = params.frames;
  const canvas = $('arena');
  const context = canvas.getContext('2d');
  const arena = new WebArena(params.entities, params.seed, canvas.width, canvas.height);
  const steps = [], draws = [], drawn = [];
  // Every step time up to frame `target`, for the browser test's comparison with the native run.
  const stepsToTarget = [];
  let paused = false, stepOnce = false;
  $('checksum-label').textContent = `checksum at frame ${target}`;
  $('pause').onclick = () => {
    paused = !paused;
    $('pause').textContent = paused ? 'run' : 'pause';
    $('step-once').disabled = !paused;
  };
  $('step-once').onclick = () => { stepOnce = true; };
  // Exposed for the browser test (scripts/web-test.sh).
  window.arenaStats = () => ({
    frame: arena.frame(), entities: arena.entities(),
    stepMs: median(steps), drawMs: median(draws), fps: drawn.length,
    stepMsToTarget: median(stepsToTarget),
  });

  function tick(now) {
    if (!paused || stepOnce) {
      stepOnce = false;
      const t0 = performance.now();
      arena.step(1);
      steps.push(performance.now() - t0);
      if (arena.frame() <= target) stepsToTarget.push(steps[steps.length - 1]);
      if (steps.length > 60) steps.shift();
      if (arena.frame() === target) {
        $('checksum').textContent = arena.checksum();
        $('checksum').dataset.frame = String(target);
      }
    }
    const t1 = performance.now();
    arena.draw(context);
    draws.push(performance.now() - t1);
    if (draws.length > 60) draws.shift();
    drawn.push(now);
    while (drawn.length && drawn[0] <= now - 1000) drawn.shift();
    $('frame').textContent = arena.frame();
    $('entities').textContent = arena.entities().toLocaleString('en');
    $('churn').textContent = `${arena.spawned()} / ${arena.despawned()} this frame`;
    $('step').textContent = `${median(steps).toFixed(2)} ms`;
    $('draw').textContent = `${median(draws).toFixed(2)} ms`;
    $('fps').textContent = drawn.length;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
}

// A JsError from the wasm module is an Error whose message names the parameter.
start().catch((error) => {
  $('error').textContent = error instanceof Error ? error.message : String(error);
  throw error;
});
