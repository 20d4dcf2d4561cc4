/// The page's script: reads the embedded data, draws the lanes on a canvas, and handles
/// zoom, pan, selection of causes and effects, search, deep links and the list of
/// differences. It inserts trace text only through `textContent` and canvas `fillText`.
enum PageScript {
    static let source = #"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("marbles-data").textContent);
  const S = D.strings, L = D.lanes, E = D.events;
  const laneCount = L.node.length, n = E.k.length;
  const KINDS = ["value", "failed", "completed", "interrupted", "subscribed"];
  const LABEL_W = 230, RULER_H = 30, ROW_H = 30, AGGREGATE_PX = 4, HIT_PX = 8, SIDE_BY_SIDE = 4;

  // Absolute times, lane of each event, offsets of each event's causes.
  const T = new Float64Array(n), laneOf = new Int32Array(n), causeStart = new Int32Array(n + 1);
  let end = 1;
  for (let l = 0; l < laneCount; l++) {
    let time = 0;
    for (let i = L.first[l], e = i + L.count[l]; i < e; i++) { time += E.t[i]; T[i] = time; laneOf[i] = l; }
    if (time > end) end = time;
  }
  for (const d of D.traces.duration) if (d > end) end = d;
  for (let i = 0; i < n; i++) causeStart[i + 1] = causeStart[i] + E.cn[i];
  let effectStart = null, effectList = null;

  const str = (i) => (i >= 0 ? S[i] : null);
  const laneName = (l) => {
    const label = str(L.label[l]), name = S[L.name[l]], params = S[L.params[l]];
    const base = label !== null ? label : (params ? name + "(" + params + ")" : name);
    return (D.traces.name.length > 1 ? (L.trace[l] === 0 ? "A " : "B ") : "") + base;
  };

  const canvas = document.getElementById("view"), box = document.getElementById("lanes");
  const ctx = canvas.getContext("2d");
  let width = 800, v0 = 0, v1 = end * 1.02 + 1, selected = -1, focusLane = -1;
  let highlight = new Set();

  const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  // The figures' colour of each thread (ThreadColours: main blue, background orange, the others in order of first appearance).
  const threadColour = (h) => S[D.threadColours[h]];

  function resize() {
    const ratio = window.devicePixelRatio || 1;
    width = Math.max(320, box.clientWidth);
    const height = RULER_H + laneCount * ROW_H + 8;
    canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px"; canvas.style.height = height + "px";
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    draw();
  }

  const plotW = () => width - LABEL_W - 12;
  const xOf = (t) => LABEL_W + (t - v0) / (v1 - v0) * plotW();
  const tOf = (x) => v0 + (x - LABEL_W) / plotW() * (v1 - v0);
  const yOf = (l) => RULER_H + l * ROW_H + ROW_H / 2;

  function lowerBound(lo, hi, t) {
    while (lo < hi) { const mid = (lo + hi) >> 1; if (T[mid] < t) lo = mid + 1; else hi = mid; }
    return lo;
  }

  /** A time on the ruler, in the unit that suits `step` (the spacing of its ticks). */
  function formatTime(t, step) {
    const units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];
    // The largest unit at most 1000 steps, so a label has at most three decimals.
    for (const [size, unit] of units) {
      if (step * 1000 >= size || size === 1) {
        const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / size) - 1e-9)));
        return (t / size).toFixed(digits) + " " + unit;
      }
    }
  }

  /** An instant, to the nanosecond, in the largest unit below it. */
  function formatInstant(t) {
    if (t >= 1e9) return (t / 1e9).toFixed(9).replace(/0+$/, "").replace(/\.$/, "") + " s";
    if (t >= 1e6) return (t / 1e6).toFixed(6).replace(/0+$/, "").replace(/\.$/, "") + " ms";
    if (t >= 1e3) return (t / 1e3).toFixed(3).replace(/0+$/, "").replace(/\.$/, "") + " µs";
    return t + " ns";
  }

  function tickStep() {
    const target = (v1 - v0) / plotW() * 90;
    const power = Math.pow(10, Math.floor(Math.log10(target)));
    for (const m of [1, 2, 5, 10]) if (m * power >= target) return m * power;
    return 10 * power;
  }

  function drawMark(kind, x, y, colour) {
    ctx.lineWidth = 2;
    switch (kind) {
      case 0:
        ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fillStyle = colour; ctx.fill();
        ctx.strokeStyle = css("--fg"); ctx.lineWidth = 1; ctx.stroke(); break;
      case 1:
        ctx.strokeStyle = css("--failed"); ctx.beginPath();
        ctx.moveTo(x - 6, y - 6); ctx.lineTo(x + 6, y + 6); ctx.moveTo(x + 6, y - 6); ctx.lineTo(x - 6, y + 6); ctx.stroke(); break;
      case 2:
        ctx.strokeStyle = colour; ctx.beginPath(); ctx.moveTo(x, y - 9); ctx.lineTo(x, y + 9); ctx.stroke(); break;
      case 3:
        ctx.strokeStyle = colour; ctx.beginPath();
        ctx.moveTo(x - 2, y - 9); ctx.lineTo(x - 2, y + 9); ctx.moveTo(x + 2, y - 9); ctx.lineTo(x + 2, y + 9); ctx.stroke(); break;
      default:
        ctx.strokeStyle = colour; ctx.beginPath(); ctx.moveTo(x - 5, y + 12); ctx.lineTo(x, y + 5); ctx.lineTo(x + 5, y + 12); ctx.stroke();
    }
  }

  function draw() {
    const fg = css("--fg"), muted = css("--muted"), line = css("--line");
    ctx.clearRect(0, 0, width, canvas.height);
    ctx.font = "12px system-ui, sans-serif"; ctx.textBaseline = "middle";
    // Grid lines at the ruler's ticks.
    const step = tickStep();
    ctx.strokeStyle = line; ctx.lineWidth = 1;
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, RULER_H); ctx.lineTo(x, RULER_H + laneCount * ROW_H); ctx.stroke();
    }
    // Lanes.
    for (let l = 0; l < laneCount; l++) {
      const y = yOf(l);
      if (l === focusLane) { ctx.fillStyle = css("--focus"); ctx.fillRect(0, y - ROW_H / 2, width, ROW_H); }
      else if (l % 2 === 1) { ctx.fillStyle = css("--stripe"); ctx.fillRect(0, y - ROW_H / 2, width, ROW_H); }
      ctx.fillStyle = L.depth[l] > 0 ? muted : fg;
      const indent = 6 + 14 * L.depth[l];
      let name = (L.depth[l] > 0 ? "↳ " : "") + laneName(l);
      while (name.length > 4 && ctx.measureText(name).width > LABEL_W - indent - 30) name = name.slice(0, -2) + "…";
      ctx.fillText(name, indent, y);
      ctx.fillStyle = muted; ctx.textAlign = "right"; ctx.fillText(String(L.node[l]), LABEL_W - 6, y); ctx.textAlign = "left";
      const first = L.first[l], last = first + L.count[l];
      ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, y - ROW_H / 2, width - LABEL_W, ROW_H); ctx.clip();
      if (L.count[l] > 0) {
        ctx.strokeStyle = line; ctx.lineWidth = 1; ctx.beginPath();
        ctx.moveTo(xOf(T[first]), y); ctx.lineTo(xOf(T[last - 1]), y); ctx.stroke();
      }
      const pad = (v1 - v0) / plotW() * 10, bucket = (v1 - v0) / plotW() * AGGREGATE_PX;
      let i = lowerBound(first, last, v0 - pad);
      while (i < last && T[i] <= v1 + pad) {
        const j = lowerBound(i + 1, last, T[i] + bucket);
        const x = xOf(T[i]);
        if (j - i > 1 && j - i <= SIDE_BY_SIDE && T[j - 1] === T[i]) {
          // A few events at one instant: side by side, in their order.
          for (let k = i; k < j; k++) drawMark(E.k[k], x + (k - i) * 14, y, threadColour(E.h[k]));
        } else if (j - i > 1) {
          // Events closer than a few pixels: one block with their count, where it fits
          // before the next block; else a block as wide as the room, its shade the density.
          const label = "×" + (j - i), room = (j < last ? xOf(T[j]) : width) - x - 1;
          const w = Math.max(12, ctx.measureText(label).width + 8), fits = room >= w;
          ctx.fillStyle = muted; ctx.globalAlpha = fits ? 0.35 : Math.min(0.85, 0.25 + 0.1 * Math.log2(j - i));
          ctx.fillRect(x - 2, y - 8, fits ? w : Math.max(2, Math.min(room + 2, w)), 16); ctx.globalAlpha = 1;
          if (fits) { ctx.fillStyle = fg; ctx.fillText(label, x + 2, y); }
        } else {
          drawMark(E.k[i], x, y, threadColour(E.h[i]));
        }
        i = j;
      }
      ctx.restore();
    }
    drawHighlight();
    // The ruler, at the top of the visible part of the lanes.
    const top = box.scrollTop;
    ctx.fillStyle = css("--bg"); ctx.fillRect(0, top, width, RULER_H);
    ctx.fillStyle = muted; ctx.strokeStyle = line;
    for (let t = Math.ceil(v0 / step) * step; t <= v1; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, top + RULER_H - 8); ctx.lineTo(x, top + RULER_H); ctx.stroke();
      ctx.fillText(formatTime(t, step), x + 3, top + 10);
    }
    ctx.beginPath(); ctx.moveTo(0, top + RULER_H + 0.5); ctx.lineTo(width, top + RULER_H + 0.5); ctx.stroke();
    // What the canvas shows, for screen readers (and the browser test).
    canvas.setAttribute("aria-label", laneCount + " lanes from " + formatTime(Math.max(0, v0), step) + " to "
      + formatTime(v1, step) + ", ticks every " + formatTime(step, step) + "; + and − zoom, ← and → pan");
  }

  function drawHighlight() {
    if (selected < 0) return;
    ctx.save(); ctx.beginPath(); ctx.rect(LABEL_W, RULER_H, width - LABEL_W, laneCount * ROW_H); ctx.clip();
    ctx.strokeStyle = css("--accent"); ctx.lineWidth = 2;
    for (const i of highlight) {
      const x = drawnX(i), y = yOf(laneOf[i]);
      for (let c = causeStart[i]; c < causeStart[i + 1]; c++) {
        const cause = E.c[c];
        if (!highlight.has(cause)) continue;
        ctx.beginPath(); ctx.moveTo(drawnX(cause), yOf(laneOf[cause])); ctx.lineTo(x, y); ctx.stroke();
      }
      ctx.beginPath(); ctx.arc(x, y, i === selected ? 11 : 9, 0, 2 * Math.PI); ctx.stroke();
    }
    ctx.restore();
  }

  function buildEffects() {
    effectStart = new Int32Array(n + 1);
    for (let c = 0; c < E.c.length; c++) effectStart[E.c[c] + 1]++;
    for (let i = 0; i < n; i++) effectStart[i + 1] += effectStart[i];
    effectList = new Int32Array(E.c.length);
    const fill = effectStart.slice(0, n);
    for (let i = 0; i < n; i++) for (let c = causeStart[i]; c < causeStart[i + 1]; c++) effectList[fill[E.c[c]]++] = i;
  }

  /** The selected event, its causes back to the sources and its effects down to the sinks. */
  function causalChain(index) {
    if (effectStart === null) buildEffects();
    const seen = new Set([index]);
    const walk = (start, next) => {
      const queue = [start];
      while (queue.length > 0 && seen.size < 20000) {
        const i = queue.pop();
        next(i, (j) => { if (!seen.has(j)) { seen.add(j); queue.push(j); } });
      }
    };
    walk(index, (i, add) => { for (let c = causeStart[i]; c < causeStart[i + 1]; c++) add(E.c[c]); });
    walk(index, (i, add) => { for (let c = effectStart[i]; c < effectStart[i + 1]; c++) add(effectList[c]); });
    return seen;
  }

  const el = (tag, text) => { const node = document.createElement(tag); if (text !== undefined) node.textContent = text; return node; };

  function describe(i) {
    const value = str(E.x[i]);
    return KINDS[E.k[i]] + (value !== null ? " " + value : "") + " · " + laneName(laneOf[i]) + " · " + formatInstant(T[i]);
  }

  function select(i, centre) {
    selected = i;
    highlight = i >= 0 ? causalChain(i) : new Set();
    const panel = document.getElementById("event");
    panel.replaceChildren(el("h2", "Event"));
    if (i >= 0) {
      const l = laneOf[i], dl = el("dl");
      const row = (name, value) => { if (value !== null && value !== "") { dl.append(el("dt", name), el("dd", value)); } };
      row("kind", KINDS[E.k[i]]);
      row("value", str(E.x[i]));
      row("time", formatInstant(T[i]));
      row("thread", S[D.threads[E.h[i]]]);
      row("node", L.node[l] + " " + laneName(l) + " (" + S[L.kind[l]] + " " + S[L.name[l]] + ")");
      row("parameters", S[L.params[l]]);
      row("call site", S[L.file[l]] + ":" + L.line[l]);
      row("node statistics", str(L.stats[l]));
      row("request", str(E.r[i]));
      if (E.s[i] > 0) row("sequence", String(E.s[i]));
      if (D.traces.name.length > 1) row("trace", (L.trace[l] === 0 ? "A " : "B ") + S[D.traces.name[L.trace[l]]]);
      row("causal chain", (highlight.size - 1) + " events");
      panel.append(dl);
      const json = str(E.j[i]);
      if (json !== null) {
        let shown = json;
        try { shown = JSON.stringify(JSON.parse(json), null, 2); } catch (error) { shown = json; }
        panel.append(el("h2", "JSON"), el("pre", shown));
      }
      const causes = el("ul");
      for (let c = causeStart[i]; c < causeStart[i + 1]; c++) causes.append(link(E.c[c], describe(E.c[c])));
      if (causeStart[i + 1] > causeStart[i]) panel.append(el("h2", "Caused by"), causes);
      // The primary causes back to the source, with the time each stage took.
      const path = el("ol");
      for (let j = i, steps = 0; causeStart[j + 1] > causeStart[j] && steps < 500; steps++) {
        const cause = E.c[causeStart[j]];
        path.append(link(cause, describe(cause) + " · " + formatInstant(T[j] - T[cause]) + " before"));
        j = cause;
      }
      if (path.children.length > 0) panel.append(el("h2", "Back to the source"), path);
      if (centre) { const span = v1 - v0; v0 = T[i] - span / 2; v1 = v0 + span; scrollToLane(l); }
      history.replaceState(null, "", "#t=" + (T[i] / 1e9) + "s&node=" + L.node[l]);
    }
    draw();
  }

  function link(i, text) {
    const item = el("li"), button = el("button", text);
    button.addEventListener("click", () => select(i, true));
    item.append(button);
    return item;
  }

  function scrollToLane(l) {
    focusLane = l;
    markPipeline(l);
    const y = yOf(l) - box.clientHeight / 2;
    box.scrollTop = Math.max(0, y);
  }

  /** Where draw() puts event `i`: a few events at one instant stand side by side. */
  function drawnX(i) {
    const l = laneOf[i], first = L.first[l], last = first + L.count[l];
    const same = lowerBound(first, last, T[i]), count = lowerBound(same, last, T[i] + 0.5) - same;
    return xOf(T[i]) + (count > 1 && count <= SIDE_BY_SIDE ? 14 * (i - same) : 0);
  }

  function hit(x, y) {
    const l = Math.floor((y - RULER_H) / ROW_H);
    if (l < 0 || l >= laneCount || x < LABEL_W) return -1;
    const first = L.first[l], last = first + L.count[l], t = tOf(x), slack = (v1 - v0) / plotW() * HIT_PX;
    if (L.count[l] === 0) return -1;
    let best = -1, distance = Infinity;
    for (let i = lowerBound(first, last, t - slack - 14 * SIDE_BY_SIDE * (v1 - v0) / plotW()); i < last && T[i] <= t + slack; i++) {
      const d = Math.abs(drawnX(i) - x);
      if (d < distance) { distance = d; best = i; }
    }
    return distance <= HIT_PX ? best : -1;
  }

  // Zoom and pan.
  function zoom(factor, x) {
    const t = tOf(x), minimum = 50;
    let span = Math.max(minimum, (v1 - v0) * factor);
    span = Math.min(span, end * 1.5 + 1e3);
    v0 = t - (t - v0) * span / (v1 - v0); v1 = v0 + span;
    draw();
  }
  function pan(pixels) { const dt = pixels / plotW() * (v1 - v0); v0 += dt; v1 += dt; draw(); }
  function whole() { v0 = 0; v1 = end * 1.02 + 1; draw(); }

  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    if (event.ctrlKey || Math.abs(event.deltaY) >= Math.abs(event.deltaX)) zoom(Math.exp(event.deltaY * 0.002), event.offsetX);
    else pan(event.deltaX);
  }, { passive: false });
  let dragX = null, moved = false;
  canvas.addEventListener("pointerdown", (event) => { dragX = event.offsetX; moved = false; canvas.setPointerCapture(event.pointerId); });
  canvas.addEventListener("pointermove", (event) => {
    if (dragX === null) return;
    const dx = event.offsetX - dragX;
    if (Math.abs(dx) > 2 || moved) { moved = true; pan(-dx); dragX = event.offsetX; }
  });
  canvas.addEventListener("pointerup", (event) => {
    if (!moved) select(hit(event.offsetX, event.offsetY), false);
    dragX = null;
  });
  canvas.addEventListener("keydown", (event) => {
    const centre = LABEL_W + plotW() / 2;
    switch (event.key) {
      case "+": case "=": zoom(0.5, centre); break;
      case "-": case "_": zoom(2, centre); break;
      case "ArrowLeft": pan(-plotW() / 8); break;
      case "ArrowRight": pan(plotW() / 8); break;
      case "0": case "Home": whole(); break;
      case "Escape": select(-1, false); break;
      default: return;
    }
    event.preventDefault();
  });
  window.addEventListener("resize", resize);
  box.addEventListener("scroll", draw);

  // Search: lanes by label, name or node id; events by value, JSON, request or thread.
  const search = document.getElementById("search");
  function runSearch(query) {
    const list = document.getElementById("result-list"), section = document.getElementById("results");
    list.replaceChildren();
    const q = query.trim().toLowerCase();
    if (q === "") { section.hidden = true; document.getElementById("matches").textContent = ""; return; }
    let total = 0;
    for (let l = 0; l < laneCount; l++) {
      if (laneName(l).toLowerCase().includes(q) || S[L.name[l]].toLowerCase().includes(q) || String(L.node[l]) === q) {
        total++;
        if (list.children.length < 100) {
          const item = el("li"), button = el("button", "lane " + L.node[l] + ": " + laneName(l));
          button.addEventListener("click", () => { scrollToLane(l); draw(); });
          item.append(button); list.append(item);
        }
      }
    }
    const textHit = new Uint8Array(S.length);
    for (let s = 0; s < S.length; s++) if (S[s].toLowerCase().includes(q)) textHit[s] = 1;
    const threadHit = D.threads.map((s) => textHit[s] === 1);
    for (let i = 0; i < n; i++) {
      if ((E.x[i] >= 0 && textHit[E.x[i]]) || (E.j[i] >= 0 && textHit[E.j[i]]) || (E.r[i] >= 0 && textHit[E.r[i]]) || threadHit[E.h[i]]) {
        total++;
        if (list.children.length < 100) {
          const item = link(i, describe(i) + (E.r[i] >= 0 ? " · request " + S[E.r[i]] : ""));
          item.dataset.kind = KINDS[E.k[i]];
          list.append(item);
        }
      }
    }
    section.hidden = false;
    document.getElementById("matches").textContent = total + (total === 1 ? " match" : " matches");
  }
  let searchTimer = null;
  search.addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(() => runSearch(search.value), 150); });
  search.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    runSearch(search.value);
    const first = document.querySelector("#result-list button");
    if (first) first.click();
  });

  // Differences between A and B.
  if (D.diffs.text.length > 0) {
    const list = document.getElementById("diff-list");
    for (let d = 0; d < D.diffs.text.length; d++) {
      const target = D.diffs.a[d] >= 0 ? D.diffs.a[d] : D.diffs.b[d];
      const item = target >= 0 ? link(target, S[D.diffs.text[d]]) : el("li", S[D.diffs.text[d]]);
      list.append(item);
    }
    document.getElementById("differences").hidden = false;
  }

  // The pipeline of the first trace beside the lanes: selecting a node's box scrolls to
  // its lane; resting on it shows the node's statistics. The figure is parsed as SVG and
  // kept to drawing: no script, foreign content, handlers or outside links survive.
  const pipelineBox = document.getElementById("pipeline"), pipelineNodes = new Map();
  function laneOfNode(trace, id) {
    for (let l = 0; l < laneCount; l++) if (L.trace[l] === trace && L.node[l] === id) return l;
    return -1;
  }
  function markPipeline(l) {
    for (const g of pipelineNodes.values()) g.classList.remove("current");
    const g = l >= 0 && L.trace[l] === 0 ? pipelineNodes.get(L.node[l]) : undefined;
    if (g) {
      // Centre the box inside the figure's own scroll area only (not the side panel).
      g.classList.add("current");
      const area = pipelineBox.getBoundingClientRect(), box = g.getBoundingClientRect();
      pipelineBox.scrollLeft += (box.left + box.right - area.left - area.right) / 2;
      pipelineBox.scrollTop += (box.top + box.bottom - area.top - area.bottom) / 2;
    }
  }
  if (D.pipeline.svg >= 0) {
    const svg = new DOMParser().parseFromString(S[D.pipeline.svg], "image/svg+xml").documentElement;
    if (svg.nodeName === "svg") {
      for (const unsafe of svg.querySelectorAll("script, foreignObject, iframe, use")) unsafe.remove();
      for (const node of [svg, ...svg.querySelectorAll("*")]) {
        for (const attribute of [...node.attributes]) {
          const name = attribute.name.toLowerCase();
          if (name.startsWith("on") || name === "href" || name === "xlink:href" || name === "xlink:title") node.removeAttribute(attribute.name);
        }
      }
      const figure = document.importNode(svg, true);
      // Three fifths of Graphviz's own size (points): its labels stay readable, the box scrolls.
      const points = (name) => parseFloat(figure.getAttribute(name) || "0") * 4 / 3 * 0.6;
      if (points("width") > 0 && points("height") > 0) {
        figure.style.width = points("width") + "px"; figure.style.height = points("height") + "px";
      }
      pipelineBox.append(figure);
      for (const g of figure.querySelectorAll("g.node")) {
        const title = g.querySelector("title"), match = title ? /^n(\d+)$/.exec(title.textContent) : null;
        if (match === null || Number(match[1]) >= D.pipeline.nodes.length) continue;
        const id = D.pipeline.nodes[Number(match[1])], l = laneOfNode(0, id);
        pipelineNodes.set(id, g);
        g.dataset.node = String(id);
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        const tip = (l >= 0 ? laneName(l) + " · node " + id : "node " + id)
          + (l >= 0 && str(L.stats[l]) !== null ? "\n" + str(L.stats[l]) : "")
          + (l >= 0 ? "\n" + S[L.file[l]] + ":" + L.line[l] : "");
        title.textContent = tip;
        g.setAttribute("aria-label", tip);
        const choose = () => { if (l >= 0) { scrollToLane(l); draw(); } };
        g.addEventListener("click", choose);
        g.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); choose(); } });
      }
      document.getElementById("pipeline-section").hidden = false;
      document.getElementById("pipeline-size").addEventListener("change", (event) => {
        pipelineBox.classList.toggle("fit", event.target.checked);
      });
    }
  }

  // The lanes as a table, for reading without the canvas.
  const tbody = document.querySelector("#lane-table tbody");
  for (let l = 0; l < laneCount; l++) {
    let values = 0, ends = [];
    for (let i = L.first[l], e = i + L.count[l]; i < e; i++) {
      if (E.k[i] === 0) values++; else if (E.k[i] !== 4) ends.push(KINDS[E.k[i]]);
    }
    const row = el("tr");
    const summary = ends.length > 3 ? ends.length + " ends" : ends.join(", ");
    row.append(el("td", laneName(l)), el("td", String(L.node[l])), el("td", String(values)), el("td", summary));
    if (str(L.stats[l]) !== null) row.title = str(L.stats[l]);
    row.addEventListener("click", () => { scrollToLane(l); draw(); });
    tbody.append(row);
  }

  // Deep links: #t=1.2s&span=500ms&node=9&q=magi&seq=42&trace=b
  function parseDuration(text) {
    const match = /^([0-9.]+)\s*(ns|us|µs|ms|s)?$/.exec(text);
    if (!match) return null;
    const scale = { ns: 1, us: 1e3, "µs": 1e3, ms: 1e6, s: 1e9 }[match[2] || "s"];
    return parseFloat(match[1]) * scale;
  }
  function applyHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const span = parseDuration(params.get("span") || "");
    if (span !== null && span > 0) { const c = (v0 + v1) / 2; v0 = c - span / 2; v1 = c + span / 2; }
    const t = parseDuration(params.get("t") || "");
    if (t !== null) { const s = v1 - v0; v0 = t - s / 2; v1 = t + s / 2; }
    const node = params.get("node");
    if (node !== null) {
      for (let l = 0; l < laneCount; l++) if (String(L.node[l]) === node) { scrollToLane(l); break; }
    }
    const sequence = params.get("seq");
    if (sequence !== null) {
      const trace = params.get("trace") === "b" ? 1 : 0;
      for (let i = 0; i < n; i++) {
        if (String(E.s[i]) === sequence && L.trace[laneOf[i]] === trace) { select(i, true); break; }
      }
    }
    const q = params.get("q");
    if (q !== null) { search.value = q; runSearch(q); }
    draw();
  }
  window.addEventListener("hashchange", applyHash);
  resize();
  applyHash();
  document.body.dataset.ready = "true";
  // How long the page took to become interactive (the benchmark reads it).
  document.body.dataset.readyMs = String(Math.round(performance.now()));
})();
"""#
}
