// The inspector's page: polls the JSON API once a second and renders it. No dependencies.
"use strict";
const $ = (id) => document.getElementById(id);
const state = { page: 0, pageSize: 40, selected: null, writes: false, editing: false,
  saved: null, scrub: null, shown: null };
// `?select=ID` opens the page on an entity, `&frame=F` with the scrubber on saved frame F, and
// `&diff=A,B` with the diff of frames A and B shown (links to share, and what the browser test uses).
const params = new URLSearchParams(location.search);
state.selected = params.get("select");
if (params.get("frame") != null) state.scrub = Number(params.get("frame"));
const diffParam = (params.get("diff") || "").split(",");

async function api(path, options) {
  const response = await fetch(path, options);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.status);
  return body;
}

function text(tag, content, cls) {
  const el = document.createElement(tag);
  el.textContent = content;
  if (cls) el.className = cls;
  return el;
}

function link(id) {
  const a = text("a", id);
  a.onclick = () => select(id);
  return a;
}

async function refreshWorld() {
  const world = await api("/api/world");
  $("entity-count").textContent = world.entities;
  $("frame").textContent = world.frame;
  $("version").textContent = world.version;
  $("state").textContent = world.paused ? "paused" : "running";
  state.writes = world.writes;
  for (const id of ["pause", "resume", "step"]) $(id).disabled = !world.writes;
  $("pause").hidden = world.paused;
  $("resume").hidden = !world.paused;
  const select = $("with");
  if (select.options.length !== world.components.length + 1) {
    select.replaceChildren(new Option("any component", ""));
    for (const c of world.components) select.add(new Option(c.name, c.name));
  }
  fillMapSelects(world.components.map((c) => c.name));
  const body = $("component-table").tBodies[0];
  body.replaceChildren();
  for (const c of world.components) {
    const row = body.insertRow();
    row.append(text("td", c.name), text("td", c.entities, "num"), text("td", c.pool_rows, "num"), text("td", c.bytes, "num"));
  }
  $("resources").textContent = JSON.stringify(world.resources, null, 1);
  $("message").textContent = world.errors.length ? world.errors[world.errors.length - 1] : "";
}

async function refreshEntities() {
  const query = new URLSearchParams({ page: state.page, page_size: state.pageSize });
  if ($("search").value) query.set("search", $("search").value);
  if ($("with").value) query.set("with", $("with").value);
  const page = await api("/api/entities?" + query);
  if (page.pages > 0 && state.page >= page.pages) { state.page = page.pages - 1; return refreshEntities(); }
  $("page").textContent = `${page.pages ? page.page + 1 : 0} / ${page.pages} (${page.total})`;
  const list = $("entity-list");
  list.replaceChildren();
  for (const e of page.entities) {
    const li = text("li", e.id + " ");
    li.dataset.id = e.id;
    li.append(text("small", e.components.join(", ")));
    if (e.id === state.selected) li.className = "selected";
    li.onclick = () => select(e.id);
    list.append(li);
  }
}

async function refreshEntity() {
  if (!state.selected || state.editing) return;
  let body;
  try {
    body = await api("/api/entities/" + state.selected);
  } catch (error) {
    $("components").replaceChildren(text("p", `${state.selected} is gone (${error.message})`));
    return;
  }
  const entity = body.entity;
  $("entity-id").textContent = entity.id;
  const links = $("entity-links");
  links.replaceChildren();
  if (entity.parent) links.append("parent ", link(entity.parent), " ");
  if (entity.children.length) { links.append("children "); for (const c of entity.children) links.append(link(c), " "); }
  if (state.writes) {
    const despawn = text("button", "Despawn");
    despawn.onclick = () => write("DELETE", "/api/entities/" + entity.id);
    links.append(despawn);
  }
  const box = $("components");
  box.replaceChildren();
  for (const [name, value] of Object.entries(entity.components)) {
    const div = document.createElement("div");
    div.className = "component";
    div.dataset.component = name;
    div.append(text("h3", name));
    const json = JSON.stringify(value, null, 1);
    if (state.writes) {
      const area = text("textarea", json);
      area.rows = Math.min(json.split("\n").length, 12);
      area.onfocus = () => { state.editing = true; };
      area.onblur = () => { state.editing = false; };
      const save = text("button", "Set");
      save.onmousedown = (ev) => ev.preventDefault();
      save.onclick = () => {
        let value;
        try { value = JSON.parse(area.value); } catch (error) { $("message").textContent = error.message; return; }
        state.editing = false;
        write("POST", `/api/entities/${entity.id}/components/${name}`, JSON.stringify(value));
      };
      div.append(area, save);
    } else {
      div.append(text("pre", json, "value"));
    }
    box.append(div);
  }
  // Pairs of registered kinds: each target as a link, with the pair's value (read only).
  for (const [name, pairs] of Object.entries(entity.pairs || {})) {
    const div = document.createElement("div");
    div.className = "component";
    div.dataset.pair = name;
    div.append(text("h3", `(${name}, *)`));
    for (const pair of pairs) {
      const line = document.createElement("div");
      line.append(link(pair.target), " ");
      if (pair.value !== null) line.append(text("small", JSON.stringify(pair.value)));
      div.append(line);
    }
    box.append(div);
  }
}

async function refreshTree() {
  const tree = await api("/api/hierarchy");
  const nodes = new Map(tree.nodes.map((n) => [n.id, n]));
  const build = (id, depth) => {
    const li = document.createElement("li");
    li.append(link(id));
    const node = nodes.get(id);
    if (node && node.children.length && depth < 32) {
      const ul = document.createElement("ul");
      for (const c of node.children.slice(0, 200)) ul.append(build(c, depth + 1));
      li.append(ul);
    }
    return li;
  };
  const ul = document.createElement("ul");
  for (const root of tree.roots.slice(0, 200)) ul.append(build(root, 0));
  $("tree").replaceChildren(tree.roots.length ? ul : text("p", "no hierarchy"));
}

async function refreshSchedule() {
  const { schedule } = await api("/api/schedule");
  const body = $("systems").tBodies[0];
  body.replaceChildren();
  const fmt = (v) => (v == null ? "–" : v.toFixed(4));
  for (const s of schedule.systems) {
    const row = body.insertRow();
    row.append(text("td", s.order, "num"), text("td", s.batch, "num"), text("td", s.name),
      text("td", fmt(s.median_ms), "num"), text("td", fmt(s.max_ms), "num"));
  }
}

async function refreshEvents() {
  const { events } = await api("/api/events");
  const body = $("events").tBodies[0];
  body.replaceChildren();
  for (const e of events) {
    const row = body.insertRow();
    row.append(text("td", e.name), text("td", e.backlog, "num"), text("td", e.sent, "num"),
      text("td", e.readers, "num"));
  }
}

async function refreshFrames() {
  const frames = await api("/api/frames");
  const times = frames.frame_times_ms;
  $("frame-stats").textContent = times.length
    ? `median ${frames.median_ms.toFixed(3)} ms, max ${frames.max_ms.toFixed(3)} ms` : "";
  const canvas = $("chart");
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  if (!times.length) return;
  const top = Math.max(...times) * 1.1 || 1;
  const w = canvas.width / Math.max(times.length, 1);
  ctx.fillStyle = "#4a87b5";
  times.forEach((t, i) => {
    const h = (t / top) * canvas.height;
    ctx.fillRect(i * w, canvas.height - h, Math.max(w - 0.5, 0.5), h);
  });
  ctx.fillStyle = "#333";
  ctx.fillText(`${top.toFixed(2)} ms`, 4, 12);
}

// Time travel: the frames the game keeps (GET /api/frames/saved), the selected entity as of the
// frame under the scrubber (GET /api/frames/F/entities/ID), and a diff of two frames (GET /api/diff).
async function refreshTravel() {
  let saved;
  try {
    saved = await api("/api/frames/saved");
  } catch (error) {
    state.saved = null;
    $("travel-range").textContent = "";
    $("scrub-note").textContent = "no frames kept (the game calls Inspector::keep_frames)";
    for (const id of ["scrub", "rewind", "diff"]) $(id).disabled = true;
    return;
  }
  state.saved = saved;
  showRecording(saved);
  const frames = saved.frames;
  if (!frames.length) return;
  const [oldest, newest] = [frames[0], frames[frames.length - 1]];
  $("travel-range").textContent = `frames ${oldest}–${newest} of ${saved.capacity} kept, live ${saved.current}`;
  const scrub = $("scrub");
  scrub.disabled = false;
  $("diff").disabled = false;
  scrub.min = oldest;
  scrub.max = newest;
  if (state.scrub != null && (state.scrub < oldest || state.scrub > newest)) state.scrub = null;
  scrub.value = state.scrub == null ? newest : state.scrub;
  $("rewind").disabled = !state.writes || state.scrub == null;
  if (!$("diff-a").value) $("diff-a").value = oldest;
  if (!$("diff-b").value) $("diff-b").value = newest;
  await showScrubbed();
}

// Frames are saved on their own while the page is open only when the whole ring fits in the
// game's record budget; past it (a large world), the Record button saves them on demand.
function showRecording(saved) {
  const mb = (bytes) => (bytes / 1048576).toFixed(bytes < 10485760 ? 1 : 0);
  const button = $("record");
  if (saved.auto) {
    button.hidden = true;
    $("record-note").textContent = "";
    return;
  }
  button.hidden = false;
  button.textContent = saved.recording ? "Stop recording" : "Record";
  $("record-note").textContent = saved.recording
    ? `recording every frame: up to ${saved.capacity} frames, ${mb(saved.ring_bytes)} MB`
    : `not recording: the ring would take ${mb(saved.ring_bytes)} MB, over the game's budget of ${mb(saved.record_budget)} MB`;
}

async function showScrubbed() {
  $("scrub-frame").textContent = state.scrub == null ? "live" : state.scrub;
  const box = $("scrub-entity");
  if (state.scrub == null || !state.selected) {
    box.replaceChildren();
    $("scrub-note").textContent = state.selected ? "move the slider to see this entity in a saved frame"
      : "select an entity, then move the slider";
    state.shown = null;
    return;
  }
  const key = `${state.scrub}/${state.selected}`;
  if (state.shown === key) return;
  state.shown = key;
  $("scrub-note").textContent = `${state.selected} as of frame ${state.scrub}`;
  try {
    const { entity } = await api(`/api/frames/${state.scrub}/entities/${state.selected}`);
    box.replaceChildren();
    for (const [name, value] of Object.entries(entity.components)) {
      const div = document.createElement("div");
      div.className = "component";
      div.dataset.component = name;
      div.append(text("h3", name), text("pre", JSON.stringify(value, null, 1), "value"));
      box.append(div);
    }
  } catch (error) {
    box.replaceChildren(text("p", error.message));
  }
}

async function showDiff() {
  const out = $("diff-result");
  try {
    const d = await api(`/api/diff?a=${encodeURIComponent($("diff-a").value)}&b=${encodeURIComponent($("diff-b").value)}`);
    out.replaceChildren();
    if (d.same) { out.append(text("p", `frames ${d.a} and ${d.b} are the same`, "same")); return; }
    out.append(text("p", `frame ${d.a} → ${d.b}: ${d.entities.a} → ${d.entities.b} entities, `
      + `${d.entities.spawned} spawned, ${d.entities.despawned} despawned; first difference: ${d.first_difference}`));
    const table = document.createElement("table");
    table.id = "diff-table";
    const head = table.createTHead().insertRow();
    for (const h of ["component", "added", "removed", "changed"]) head.append(text("th", h));
    const body = table.createTBody();
    for (const c of d.components) {
      const row = body.insertRow();
      row.append(text("td", c.name), text("td", c.added, "num"), text("td", c.removed, "num"), text("td", c.changed, "num"));
    }
    out.append(table);
    if (d.unchanged_components.length) out.append(text("p", "unchanged: " + d.unchanged_components.join(", ")));
    if (d.resources_changed.length) out.append(text("p", "resources changed: " + d.resources_changed.join(", ")));
    const examples = document.createElement("ul");
    for (const c of d.components) {
      for (const v of c.changed_values.slice(0, 3)) {
        const li = document.createElement("li");
        li.append(`${c.name} of `, link(v.id), `: ${JSON.stringify(v.a)} → ${JSON.stringify(v.b)}`);
        examples.append(li);
      }
    }
    out.append(examples);
  } catch (error) {
    out.replaceChildren(text("p", error.message));
  }
}

// The map: every entity with the chosen component as a point at its two numeric fields
// (GET /api/map, or /api/frames/F/map under the time-travel scrubber), coloured by another
// component's value; a click selects the nearest point's entity. Drawn into an ImageData, one
// write per point, so 10^5 points draw in a few milliseconds.
const PALETTE = [[214, 69, 58], [52, 112, 214], [44, 160, 90], [232, 150, 30], [142, 74, 204],
  [24, 160, 172], [204, 82, 150], [120, 120, 120], [150, 110, 60], [90, 170, 40]];
// Entities without the colour component (`null`) are grey; the rest take the palette in order.
function categoryColour(categories, i) {
  if (categories[i] === "null") return [175, 175, 175];
  const before = categories.slice(0, i).filter((c) => c !== "null").length;
  return PALETTE[before % PALETTE.length];
}
const mapState = { data: null, image: null, u32: null, loads: 0, draws: 0, drawMs: 0, fit: null, key: null };

function fillMapSelects(names) {
  const comp = $("map-component"), colour = $("map-color");
  if (comp.options.length === names.length) return;
  comp.replaceChildren();
  for (const n of names) comp.add(new Option(n, n));
  comp.value = names.includes("position") ? "position" : names[0] || "";
  colour.replaceChildren(new Option("nothing", ""));
  for (const n of names) colour.add(new Option(n, n));
  colour.value = names.includes("team") ? "team" : "";
}

async function refreshMap() {
  const component = $("map-component").value;
  if (!component) return;
  const query = new URLSearchParams({ component, x: $("map-x").value || "x", y: $("map-y").value || "y" });
  if ($("map-color").value) query.set("color", $("map-color").value);
  const path = (state.scrub == null ? "/api/map?" : `/api/frames/${state.scrub}/map?`) + query;
  try {
    mapState.data = await api(path);
    mapState.loads += 1;
    const d = mapState.data;
    $("map-info").textContent = `${d.count} points${d.skipped ? `, ${d.skipped} without numeric ${d.x}, ${d.y}` : ""}`
      + (state.scrub == null ? ", live" : `, frame ${state.scrub}`);
    const legend = $("map-legend");
    legend.replaceChildren();
    d.categories.forEach((c, i) => {
      const swatch = text("span", "", "swatch");
      const [r, g, b] = categoryColour(d.categories, i);
      swatch.style.background = `rgb(${r},${g},${b})`;
      legend.append(swatch, `${d.color || ""} ${c}`);
    });
  } catch (error) {
    mapState.data = null;
    $("map-info").textContent = error.message;
  }
  drawMap();
}

function drawMap() {
  const start = performance.now();
  const canvas = $("map");
  const ctx = canvas.getContext("2d");
  const [w, h] = [canvas.width, canvas.height];
  if (!mapState.image) {
    mapState.image = ctx.createImageData(w, h);
    mapState.u32 = new Uint32Array(mapState.image.data.buffer);
  }
  const u32 = mapState.u32;
  u32.fill(0xfffafafa); // ABGR, little-endian: #fafafa
  const d = mapState.data;
  mapState.fit = null;
  if (d && d.count) {
    const [x0, y0, x1, y1] = d.bounds;
    const scale = Math.min((w - 6) / Math.max(x1 - x0, 1e-9), (h - 6) / Math.max(y1 - y0, 1e-9));
    mapState.fit = { x0, y0, scale };
    const colours = d.categories.map((_, i) => {
      const [r, g, b] = categoryColour(d.categories, i);
      return (255 << 24) | (b << 16) | (g << 8) | r;
    });
    const { xs, ys, colors } = d;
    for (let i = 0; i < xs.length; i++) {
      const px = 3 + ((xs[i] - x0) * scale) | 0;
      const py = 3 + ((ys[i] - y0) * scale) | 0;
      const c = colours[colors[i] % colours.length];
      const at = py * w + px;
      u32[at] = c;
      u32[at + 1] = c;
    }
  }
  ctx.putImageData(mapState.image, 0, 0);
  if (d && mapState.fit && state.selected) {
    const [index, generation] = state.selected.split("v").map(Number);
    for (let i = 0; i < d.index.length; i++) {
      if (d.index[i] === index && d.generation[i] === generation) {
        const { x0, y0, scale } = mapState.fit;
        ctx.strokeStyle = "#000";
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(3 + (d.xs[i] - x0) * scale, 3 + (d.ys[i] - y0) * scale, 7, 0, 2 * Math.PI);
        ctx.stroke();
        break;
      }
    }
  }
  mapState.draws += 1;
  mapState.drawMs = performance.now() - start;
}

$("map").onclick = (event) => {
  const d = mapState.data, fit = mapState.fit;
  if (!d || !fit) return;
  const canvas = $("map"), rect = canvas.getBoundingClientRect();
  const cx = (event.clientX - rect.left) * canvas.width / rect.width;
  const cy = (event.clientY - rect.top) * canvas.height / rect.height;
  let best = -1, bestDistance = 8 * 8;
  for (let i = 0; i < d.xs.length; i++) {
    const dx = 3 + (d.xs[i] - fit.x0) * fit.scale - cx, dy = 3 + (d.ys[i] - fit.y0) * fit.scale - cy;
    const distance = dx * dx + dy * dy;
    if (distance < bestDistance) { best = i; bestDistance = distance; }
  }
  if (best >= 0) select(`${d.index[best]}v${d.generation[best]}`);
};
for (const id of ["map-component", "map-x", "map-y", "map-color"]) $(id).onchange = refreshMap;
// For the browser test: what the map holds, and how many full redraws a second it sustains.
window.mapStats = () => ({ points: mapState.data ? mapState.data.count : 0, loads: mapState.loads, draws: mapState.draws,
  drawMs: mapState.drawMs, info: $("map-info").textContent });
// The map's data and its fit to the canvas, and the entities drawn within 8 pixels of a point.
window.mapStatsData = () => ({ ...mapState.data, fit: mapState.fit, near: (cx, cy) => {
  const d = mapState.data, fit = mapState.fit, ids = [];
  for (let i = 0; i < d.xs.length; i++) {
    const dx = 3 + (d.xs[i] - fit.x0) * fit.scale - cx, dy = 3 + (d.ys[i] - fit.y0) * fit.scale - cy;
    if (dx * dx + dy * dy < 64) ids.push(`${d.index[i]}v${d.generation[i]}`);
  }
  return ids;
} });
window.mapBench = (ms) => new Promise((resolve) => {
  const start = performance.now();
  let frames = 0;
  const step = () => {
    drawMap();
    frames += 1;
    const elapsed = performance.now() - start;
    if (elapsed < ms) requestAnimationFrame(step); else resolve(frames * 1000 / elapsed);
  };
  requestAnimationFrame(step);
});

// The write token the game printed in the page's URL (`?token=...`); writes without it are refused.
const TOKEN = params.get("token") || "";

async function write(method, path, body) {
  try {
    await api(path, { method, body, headers: { "Content-Type": "application/json", "X-Mosaic-Token": TOKEN } });
    $("message").textContent = "";
  } catch (error) {
    $("message").textContent = error.message;
  }
  refresh();
}

function select(id) {
  state.selected = id;
  state.editing = false;
  drawMap();
  refresh();
}

let busy = false;
async function refresh() {
  if (busy) return;
  busy = true;
  try {
    await refreshWorld();
    await refreshEntities();
    await refreshEntity();
    await refreshTree();
    await refreshSchedule();
    await refreshEvents();
    await refreshFrames();
    await refreshTravel();
    await refreshMap();
    $("state").classList.remove("error");
  } catch (error) {
    $("state").textContent = "error: " + error.message;
  } finally {
    busy = false;
  }
}

$("pause").onclick = () => write("POST", "/api/pause");
$("resume").onclick = () => write("POST", "/api/resume");
$("step").onclick = () => write("POST", "/api/step");
$("prev").onclick = () => { state.page = Math.max(0, state.page - 1); refresh(); };
$("next").onclick = () => { state.page += 1; refresh(); };
$("search").oninput = () => { state.page = 0; refresh(); };
$("with").onchange = () => { state.page = 0; refresh(); };
$("scrub").oninput = () => { state.scrub = Number($("scrub").value); $("scrub-frame").textContent = state.scrub; };
$("scrub").onchange = () => {
  state.scrub = Number($("scrub").value);
  $("rewind").disabled = !state.writes;
  showScrubbed();
  refreshMap(); // the map moves with the scrubber
};
$("rewind").onclick = () => { if (state.scrub != null) write("POST", `/api/rewind?frame=${state.scrub}`); };
$("diff").onclick = showDiff;
$("record").onclick = async () => {
  const on = !(state.saved && state.saved.recording);
  await write("POST", `/api/frames/record?on=${on}`);
  refreshTravel();
};
if (diffParam.length === 2) {
  [$("diff-a").value, $("diff-b").value] = diffParam;
  showDiff();
}
refresh();
setInterval(refresh, 1000);
