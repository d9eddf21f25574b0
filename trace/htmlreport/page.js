// manetlab HTML report: draws the embedded run data (see htmlreport.Data)
// with hand-written SVG. Loads nothing; sets body[data-ready="1"] when
// every part has been drawn.
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var D = JSON.parse(document.getElementById("manetlab-data").textContent);
  var N = D.nodes.length;
  var idx = {};
  D.nodes.forEach(function (id, i) { idx[id] = i; });

  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function h(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  // The map component the pages share (internal/mapview) gives the
  // colours, the look of leaders and crashed nodes, and the labels' places.
  var colour = ManetMap.colour;
  function fmt(v, digits) {
    if (v === null || v === undefined) return "—";
    return Number(v).toFixed(digits);
  }
  function secs(t) { return t.toFixed(t < 10 ? 3 : 2) + " s"; }

  // Whether the page holds node i's leaders and tree edges: in a run too
  // large for every node's, only those of the nodes whose ID is a
  // multiple of D.sample.
  function detailed(i) { return !D.sample || D.nodes[i] % D.sample === 0; }

  // State at time t from the per-node change lists.
  function leaderAt(i, t) {
    var segs = D.leaders[i] || [];
    for (var k = 0; k < segs.length; k++) {
      if (segs[k][0] <= t && t < segs[k][1]) return segs[k][2];
      if (segs[k][0] > t) break;
    }
    // The end of the run belongs to the last segment.
    var last = segs[segs.length - 1];
    if (last && t === last[1] && t >= D.end) return last[2];
    return 0;
  }
  function deadAt(i, t) {
    var ds = D.dead[i] || [];
    for (var k = 0; k < ds.length; k++) if (ds[k][0] <= t && t < ds[k][1]) return true;
    return false;
  }
  function parentAt(i, t) {
    var ps = D.parents[i] || [], p = 0;
    for (var k = 0; k < ps.length && ps[k][0] <= t; k++) p = ps[k][1];
    return p;
  }

  // ---- header, metrics, verdicts ----
  function drawSummary() {
    var info = [D.protocol, "driver " + D.driver, N + " nodes", secs(D.end)];
    if (D.scenario) info.unshift("scenario " + D.scenario);
    document.getElementById("run-info").textContent = info.join(" · ");
    var m = D.metrics;
    var box = document.getElementById("metrics");
    var cx = m && m.complexity;
    if (cx && cx.bound && cx.bound.name && !cx.sync) {
      // The figure a lesson wants first: the algorithm's messages beside
      // its theory for this arrangement (issue 22).
      var b = cx.bound, cb = h("div", { id: "complexity" }, box);
      h("b", {}, cb, cx.messages + " election messages");
      var th = "theory: " + (b.exact != null ? "exactly " + b.exact + " for this arrangement (" + (!cx.elections ? "not compared: no election finished" : cx.messages === b.exact ? "matches" : "differs") + "); " : "") +
        b.name + " = " + b.value + (b.best != null ? " (best " + b.best + ", worst " + b.worst + ")" : "");
      h("span", {}, cb, " · " + th);
      h("div", { "class": "reason" }, cb, "messages the algorithm originated (relays of multi-hop frames apart); announcement " + cx.announce +
        (cx.control ? ", control " + cx.control : "") + ", the reliable channel's acknowledgements and retransmissions " + cx.transport +
        "; " + cx.elections + " election(s) in " + fmt(cx.time, 3) + " s");
    }
    if (m && !m.mutex) { // mutual exclusion: no leader columns (issue 22)
      var t = h("table", { "class": "figs", id: "metrics-table" }, box);
      var hr = h("tr", {}, t);
      ["F", "R", "T (s)", "M bcast", "M ucast", "wrong or unknown leader"].forEach(function (s) { h("th", {}, hr, s); });
      var r = h("tr", {}, t);
      [fmt(m.F, 4), fmt(m.R, 4), fmt(m.T, 3), fmt(m.M_bcast, 2), fmt(m.M_ucast, 2), fmt(m.wrong_or_unknown, 4)].forEach(function (s) {
        h("td", { "class": "num" }, r, s);
      });
      h("div", { "class": "reason" }, box, "wrong or unknown leader: the share of live node-time without the right leader, elections and changes included — a measure beside the verdict, which judges settled components only");
    }
    if (m) {
      if (m.note) h("div", { "class": "reason" }, box, m.note);
      var kinds = Object.keys(m.messages || {}).sort();
      if (kinds.length) {
        h("div", { "class": "reason" }, box, "frames: " + kinds.map(function (k) {
          var c = m.messages[k];
          return k + " " + (c.broadcast + c.unicast);
        }).join(", ") + " (frames on the air, relays and retransmissions included); elections: " + (m.elections ? m.elections.length : 0));
      }
      if (D.elections && D.elections.length) {
        var el0 = h("div", { id: "elections", "class": "reason" }, box, "");
        D.elections.slice(0, 12).forEach(function (e, i) {
          var it = h("span", { "class": "election-name", title: e.epoch ? "epoch " + e.epoch : "" }, el0, (i ? "; " : "") + electionName(e));
          it.style.color = electionColour(i);
        });
        if (D.elections.length > 12) h("span", {}, el0, "; … and " + (D.elections.length - 12) + " more (the election filter lists them all)");
      }
      var x = m.mutex;
      if (x) {
        var mt = h("table", { "class": "figs", id: "mutex-table" }, box);
        var mh = h("tr", {}, mt);
        ["entries", "messages / entry", "sync delay (s)", "sync delay (msgs)", "waiting mean (s)", "waiting p95 (s)", "entries / s", "overtakes", "Jain", "waiting at end"].forEach(function (s) { h("th", {}, mh, s); });
        var mr = h("tr", {}, mt);
        [String(x.entries), fmt(x.messages_per_entry, 2), fmt(x.sync_delay.mean_time, 3), fmt(x.sync_delay.mean_messages, 2), fmt(x.waiting_mean, 3), fmt(x.waiting_p95, 3),
          fmt(x.throughput, 3), String(x.overtakes), fmt(x.jain, 3), String(x.waiting_at_end)].forEach(function (s) {
          h("td", { "class": "num" }, mr, s);
        });
        if (x.theory) h("div", { "class": "reason" }, box, "theory (n=" + x.theory.n + "): " + x.theory.messages + " messages per entry, delay " + x.theory.delay + " message times" + (x.theory.problems ? "; problems: " + x.theory.problems : ""));
      }
    }
    var c = D.check, vb = document.getElementById("verdicts");
    if (c && c.cross_host && c.cross_host.length) {
      // Cross-host problems come first, before the figures and verdicts
      // (docs/analysis.md).
      var cb = document.getElementById("cross-host");
      cb.setAttribute("class", "cross-host");
      c.cross_host.forEach(function (p) { h("div", {}, cb, "problem: " + p.text); });
    }
    if (D.verdict) { // the run's verdict line, first, as run, sim and trace report print it (docs/analysis.md, Verdicts)
      var rv = document.getElementById("run-verdict"), head = "verdict: " + D.verdict.word;
      var line = D.verdict.line || head + (D.verdict.reason ? " (" + D.verdict.reason + ")" : "");
      rv.appendChild(document.createTextNode("verdict: "));
      h("span", { "class": "verdict " + D.verdict.word }, rv, D.verdict.word);
      if (line.length > head.length) h("span", { "class": "reason" }, rv, line.slice(head.length));
    }
    if (c) {
      var vt = h("table", { "class": "figs", id: "verdict-table" }, vb);
      var vh = h("tr", {}, vt);
      ["property", "verdict", "checked", "violations", "why / first witness"].forEach(function (s) { h("th", {}, vh, s); });
      c.properties.forEach(function (p) {
        var r = h("tr", {}, vt);
        h("td", {}, r, p.name);
        var td = h("td", {}, r);
        h("span", { "class": "verdict " + p.verdict }, td, p.verdict);
        h("td", { "class": "num" }, r, String(p.checked));
        h("td", { "class": "num" }, r, String(p.violations));
        var why = p.reason || "";
        if (p.witnesses && p.witnesses.length) why = (why ? why + " — " : "") + p.witnesses[0].text;
        h("td", { "class": "reason" }, r, why);
      });
    }
    var notes = (D.notes || []).concat(D.links_note ? [D.links_note] : []).concat(D.problems || []);
    var nb = document.getElementById("notes");
    notes.forEach(function (s) { h("div", {}, nb, s); });
  }

  // ---- map ----
  var map = {};
  function drawMap() {
    var a = D.area, w = a[2] - a[0], hgt = a[3] - a[1];
    var span = Math.max(w, hgt, 1), pad = span * 0.04;
    var x0 = a[0] - pad, y0 = a[1] - pad, vw = w + 2 * pad, vh = hgt + 2 * pad;
    if (vw < span * 0.3) { x0 -= (span * 0.3 - vw) / 2; vw = span * 0.3; }
    if (vh < span * 0.3) { y0 -= (span * 0.3 - vh) / 2; vh = span * 0.3; }
    var flip = function (y) { return y0 + vh - (y - y0); }; // y grows upwards
    var svg = el("svg", { id: "map-svg", viewBox: x0 + " " + y0 + " " + vw + " " + vh, preserveAspectRatio: "xMidYMid meet" }, document.getElementById("map"));
    var r = Math.max(vw, vh) / (N > 200 ? 260 : 110);
    map.r = r;
    map.flip = flip;
    map.box = { x: x0, y: y0, w: vw, h: vh };
    map.links = el("path", { "class": "links", "stroke-width": r * 0.25 }, svg);
    map.treeG = el("g", { id: "tree" }, svg);
    map.nodeG = el("g", { id: "nodes" }, svg);
    map.labelG = el("g", { id: "labels" }, svg);
    map.edges = []; map.circles = []; map.labels = [];
    for (var i = 0; i < N; i++) {
      map.edges.push(el("line", { "class": "tree-edge", "stroke-width": r * 0.35, visibility: "hidden" }, map.treeG));
      var c = el("circle", { "class": "node", r: r, "data-node": D.nodes[i], "stroke-width": r * 0.15 }, map.nodeG);
      el("title", {}, c, "node " + D.nodes[i]);
      map.circles.push(c);
      map.labels.push(el("text", { "class": "label mv-label", "font-size": r * 1.6, "stroke-width": r * 0.3 }, map.labelG, String(D.nodes[i])));
    }
    if (N > 150) document.getElementById("show-labels").checked = false;
    var slider = document.getElementById("slider");
    slider.max = Math.max(0, D.frames.length - 1);
    slider.addEventListener("input", function () { stop(); showFrame(+slider.value); });
    ["show-links", "show-tree", "show-labels"].forEach(function (id) {
      document.getElementById(id).addEventListener("change", function () { showFrame(map.k || 0); });
    });
    var timer = null, btn = document.getElementById("play");
    function stop() { if (timer) { clearInterval(timer); timer = null; btn.textContent = "▶ play"; } }
    map.stop = stop;
    btn.addEventListener("click", function () {
      if (timer) { stop(); return; }
      if ((map.k || 0) >= D.frames.length - 1) showFrame(0);
      btn.textContent = "❚❚ pause";
      var dt = D.frames.length > 1 ? D.frames[1].t - D.frames[0].t : 1;
      timer = setInterval(function () {
        if (map.k >= D.frames.length - 1) { stop(); return; }
        showFrame(map.k + 1);
      }, Math.max(40, dt * 1000 / 5));
    });
    document.getElementById("map-explain").textContent =
      "Positions: " + D.pos_source + "; " + D.frames.length + " frames, played at 5× speed. " +
      "Faint lines: radio links (the radio model's deterministic range" + (D.range ? ", " + D.range.toFixed(0) + " m" : "") + "). " +
      "Colour: the leader a node follows (grey: none); leaders (nodes following themselves) are drawn larger with a black ring; hollow dashed: crashed. " +
      "Thick lines: tree edges — while a node follows another node, from it to the neighbour it last received a leader-carrying frame from (kind leader, beacon or announce; set when it notes its leader, and moved by each such frame), " +
      "drawn only while that neighbour follows the same leader and is within range; coloured as the leader.";
  }
  function showFrame(k) {
    map.k = k;
    var f = D.frames[k], t = f.t;
    document.getElementById("slider").value = k;
    document.getElementById("clock").textContent = t.toFixed(1) + " s";
    var showLinks = document.getElementById("show-links").checked;
    var showTree = document.getElementById("show-tree").checked;
    var showLabels = document.getElementById("show-labels").checked;
    var xy = f.xy, parts = [];
    var dead = [];
    for (var i = 0; i < N; i++) dead.push(deadAt(i, t));
    if (showLinks && f.links) {
      for (var j = 0; j < f.links.length; j += 2) {
        var p = f.links[j], q = f.links[j + 1];
        if (dead[p] || dead[q]) continue;
        parts.push("M" + xy[2 * p] + " " + map.flip(xy[2 * p + 1]) + "L" + xy[2 * q] + " " + map.flip(xy[2 * q + 1]));
      }
    }
    map.links.setAttribute("d", parts.join(""));
    var counts = {}, anchors = [];
    for (i = 0; i < N; i++) {
      var c = map.circles[i], lab = map.labels[i], e = map.edges[i];
      if (xy[2 * i] === null) {
        c.setAttribute("visibility", "hidden"); lab.setAttribute("visibility", "hidden"); e.setAttribute("visibility", "hidden");
        continue;
      }
      var x = xy[2 * i], y = map.flip(xy[2 * i + 1]);
      if (!detailed(i)) {
        c.setAttribute("visibility", "visible");
        c.setAttribute("cx", x); c.setAttribute("cy", y);
        var lu = ManetMap.look({ id: D.nodes[i], dead: dead[i], idle: true }, map.r);
        c.setAttribute("r", lu.r);
        c.setAttribute("class", "node unsampled " + lu.cls);
        c.firstChild.textContent = "node " + D.nodes[i] + (dead[i] ? " (crashed)" : " (not in the sample: its leader is not in the page)");
        lab.setAttribute("visibility", showLabels ? "visible" : "hidden");
        if (showLabels) anchors.push({ i: i, x: x, y: y, r: lu.r });
        e.setAttribute("visibility", "hidden");
        continue;
      }
      var l = dead[i] ? 0 : leaderAt(i, t);
      var isLeader = l === D.nodes[i];
      if (!dead[i]) counts[l] = (counts[l] || 0) + 1;
      c.setAttribute("visibility", "visible");
      c.setAttribute("cx", x); c.setAttribute("cy", y);
      var lk = ManetMap.look({ id: D.nodes[i], leader: l, dead: dead[i] }, map.r);
      c.setAttribute("r", lk.r);
      c.setAttribute("fill", lk.fill);
      c.setAttribute("stroke-width", lk.width);
      c.setAttribute("class", "node " + lk.cls + (isLeader ? " leader" : "") + (dead[i] ? " dead" : ""));
      c.firstChild.textContent = "node " + D.nodes[i] + (dead[i] ? " (crashed)" : l ? " follows " + l : " has no leader");
      lab.setAttribute("visibility", showLabels ? "visible" : "hidden");
      if (showLabels) anchors.push({ i: i, x: x, y: y, r: lk.r });
      var par = dead[i] ? 0 : parentAt(i, t), pi = idx[par];
      var near = false;
      if (par && pi !== undefined && xy[2 * pi] !== null && !dead[pi]) {
        var dx = xy[2 * pi] - xy[2 * i], dy = xy[2 * pi + 1] - xy[2 * i + 1];
        near = !D.range || Math.sqrt(dx * dx + dy * dy) <= D.range + 0.5;
        var pl = leaderAt(pi, t);
        near = near && (pl === l || par === l);
      }
      if (showTree && near) {
        e.setAttribute("x1", x); e.setAttribute("y1", y);
        e.setAttribute("x2", xy[2 * pi]); e.setAttribute("y2", map.flip(xy[2 * pi + 1]));
        e.setAttribute("stroke", colour(l));
        e.setAttribute("visibility", "visible");
      } else {
        e.setAttribute("visibility", "hidden");
      }
    }
    // The IDs beside their nodes, where they overlap no other ID and no
    // node and stay inside the map (up to 150 nodes: more hide them).
    var at = ManetMap.place(anchors.map(function (a) {
      return { x: a.x, y: a.y, text: String(D.nodes[a.i]), px: map.r * 1.6, gap: a.r + map.r * 0.3 };
    }), anchors, map.box);
    anchors.forEach(function (a, k) {
      map.labels[a.i].setAttribute("x", at[k].bx); map.labels[a.i].setAttribute("y", at[k].by);
    });
    var legend = document.getElementById("map-legend");
    legend.textContent = "";
    h("div", {}, legend, "followers at " + t.toFixed(1) + " s" + (D.sample > 1 ? " (of the nodes whose ID is a multiple of " + D.sample + "; the others hollow)" : "") + ":");
    Object.keys(counts).map(Number).sort(function (a, b) { return counts[b] - counts[a] || a - b; }).forEach(function (l) {
      var d = h("div", {}, legend);
      h("span", { "class": "sw", style: "background:" + colour(l) }, d);
      d.appendChild(document.createTextNode((l ? "leader " + l : "no leader") + ": " + counts[l]));
    });
    if (tl.cursor) {
      var cx = tl.x(t);
      tl.cursor.setAttribute("x1", cx); tl.cursor.setAttribute("x2", cx);
    }
  }

  // ---- timeline ----
  var tl = {};
  function drawTimeline() {
    var W = 1100, left = 46, right = 12, top = 22;
    var rows = [];
    for (var i = 0; i < N; i++) if (detailed(i)) rows.push(i);
    var R = rows.length;
    var rowH = Math.max(3, Math.min(16, Math.floor(640 / Math.max(1, R))));
    var H = top + rowH * R + 8;
    var end = Math.max(D.end, 1e-9);
    var x = function (t) { return left + (W - left - right) * t / end; };
    tl.x = x;
    var svg = el("svg", { id: "timeline-svg", width: W, height: H, viewBox: "0 0 " + W + " " + H }, document.getElementById("timeline"));
    var defs = el("defs", {}, svg);
    var pat = el("pattern", { id: "hatch", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, defs);
    el("rect", { width: 6, height: 6, fill: "#f3f3f3" }, pat);
    el("line", { x1: 0, y1: 0, x2: 0, y2: 6, stroke: "#999", "stroke-width": 2 }, pat);
    var axis = el("g", { "class": "tl-axis" }, svg);
    var step = niceStep(end / 10);
    for (var t = 0; t <= end + 1e-9; t += step) {
      el("line", { x1: x(t), x2: x(t), y1: top - 4, y2: H - 6 }, axis);
      el("text", { x: x(t), y: top - 8, "text-anchor": "middle" }, axis, (+t.toFixed(3)) + " s");
    }
    rows.forEach(function (i, row) {
      var y = top + row * rowH;
      var g = el("g", { "class": "tl-row", "data-node": D.nodes[i] }, svg);
      if (rowH >= 8) el("text", { "class": "tl-label", x: left - 4, y: y + rowH - 2, "text-anchor": "end", "font-size": Math.min(11, rowH) }, g, String(D.nodes[i]));
      (D.dead[i] || []).forEach(function (s) {
        el("rect", { "class": "dead", x: x(s[0]), y: y, width: Math.max(0.5, x(s[1]) - x(s[0])), height: rowH - 1, fill: "url(#hatch)" }, g);
      });
      (D.leaders[i] || []).forEach(function (s) {
        var r = el("rect", { "class": "seg", x: x(s[0]), y: y, width: Math.max(0.5, x(s[1]) - x(s[0])), height: Math.max(1, rowH - 1), fill: colour(s[2]), "data-leader": s[2] }, g);
        if (R <= 200) el("title", {}, r, "node " + D.nodes[i] + ": leader " + s[2] + " from " + s[0].toFixed(3) + " s to " + s[1].toFixed(3) + " s");
      });
      (D.crashes[i] || []).forEach(function (c) {
        el("line", { "class": "crash-tick", x1: x(c), x2: x(c), y1: y - 1, y2: y + rowH }, g);
      });
    });
    var ws = el("rect", { x: x(D.seq.from), y: top - 4, width: Math.max(1, x(Math.min(D.seq.to, end)) - x(D.seq.from)), height: H - top, fill: "#1565c0", "fill-opacity": 0.07 }, svg);
    el("title", {}, ws, "the message sequence window");
    drawTimelineLegend();
    tl.cursor = el("line", { "class": "cursor", x1: left, x2: left, y1: top - 4, y2: H - 4 }, svg);
    svg.addEventListener("click", function (ev) {
      var pt = svg.getBoundingClientRect();
      var t = (ev.clientX - pt.left) * (W / pt.width);
      t = (t - left) / (W - left - right) * end;
      var best = 0;
      for (var k = 0; k < D.frames.length; k++) if (Math.abs(D.frames[k].t - t) < Math.abs(D.frames[best].t - t)) best = k;
      map.stop(); showFrame(best);
    });
  }
  // The timeline's legend: a swatch per leader that some node followed
  // (its colour on the map too), then the other marks.
  function drawTimelineLegend() {
    var box = document.getElementById("timeline-legend"), seen = {}, ids = [];
    for (var i = 0; i < N; i++) (D.leaders[i] || []).forEach(function (s) {
      if (!seen[s[2]]) { seen[s[2]] = 1; ids.push(s[2]); }
    });
    ids.sort(function (a, b) { return a - b; });
    var item = function (style, text, cls) {
      var it = h("span", { "class": "tl-legend-item" + (cls ? " " + cls : "") }, box);
      h("span", { "class": "sw", style: style }, it);
      it.appendChild(document.createTextNode(text));
    };
    var shown = ids.slice(0, 40);
    shown.forEach(function (id) { item("background:" + colour(id), "leader " + id, "tl-leader"); });
    if (ids.length > shown.length) h("span", {}, box, "… and " + (ids.length - shown.length) + " more leaders");
    item("background:repeating-linear-gradient(45deg,#f3f3f3 0 3px,#999 3px 4px)", "crashed");
    item("background:#d00;width:3px", "crash");
    item("background:rgba(21,101,192,.07)", "message sequence window");
    item("background:#fff", "no leader");
  }
  function niceStep(s) {
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(s, 1e-6)))), m = s / p;
    return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
  }

  // ---- critical section lanes ----
  function drawSections() {
    var S = D.sections;
    if (!S) return;
    document.getElementById("cs-section").hidden = false;
    var rows = [];
    for (var i = 0; i < N; i++) if ((S.held[i] || []).length || (S.requests[i] || []).length) rows.push(i);
    var W = 1100, left = 46, right = 12, top = 22;
    var rowH = Math.max(6, Math.min(18, Math.floor(480 / Math.max(1, rows.length))));
    var H = top + rowH * rows.length + 8;
    var end = Math.max(D.end, 1e-9);
    var x = function (t) { return left + (W - left - right) * t / end; };
    var svg = el("svg", { id: "cs-svg", width: W, height: H, viewBox: "0 0 " + W + " " + H }, document.getElementById("cs-lanes"));
    var axis = el("g", { "class": "tl-axis" }, svg);
    var step = niceStep(end / 10);
    for (var t = 0; t <= end + 1e-9; t += step) {
      el("line", { x1: x(t), x2: x(t), y1: top - 4, y2: H - 6 }, axis);
      el("text", { x: x(t), y: top - 8, "text-anchor": "middle" }, axis, (+t.toFixed(3)) + " s");
    }
    var few = rows.length <= 200;
    rows.forEach(function (i, k) {
      var y = top + k * rowH, id = D.nodes[i];
      var g = el("g", { "class": "cs-row", "data-node": id }, svg);
      if (rowH >= 8) el("text", { "class": "tl-label", x: left - 4, y: y + rowH - 3, "text-anchor": "end", "font-size": Math.min(11, rowH) }, g, String(id));
      (S.waits[i] || []).forEach(function (w) {
        var r = el("rect", { "class": "cs-wait", x: x(w[0]), y: y + rowH * 0.2, width: Math.max(0.5, x(w[1]) - x(w[0])), height: Math.max(1, rowH * 0.6) }, g);
        if (few) el("title", {}, r, "node " + id + " waiting from " + w[0].toFixed(3) + " s to " + w[1].toFixed(3) + " s");
      });
      (S.held[i] || []).forEach(function (s) {
        var r = el("rect", { "class": "cs-held", x: x(s[0]), y: y, width: Math.max(1, x(s[1]) - x(s[0])), height: Math.max(1, rowH - 1) }, g);
        if (few) el("title", {}, r, "node " + id + " in the critical section from " + s[0].toFixed(3) + " s to " + s[1].toFixed(3) + " s");
      });
      (S.requests[i] || []).forEach(function (q) {
        el("line", { "class": "cs-request", x1: x(q), x2: x(q), y1: y, y2: y + rowH - 1 }, g);
      });
    });
    svg.addEventListener("click", function (ev) {
      var pt = svg.getBoundingClientRect();
      var t = ((ev.clientX - pt.left) * (W / pt.width) - left) / (W - left - right) * end;
      var best = 0;
      for (var k = 0; k < D.frames.length; k++) if (Math.abs(D.frames[k].t - t) < Math.abs(D.frames[best].t - t)) best = k;
      map.stop(); showFrame(best);
    });
  }

  // ---- sequence diagram ----
  function electionName(e) {
    return "election by node " + e.initiator + " at " + e.start.toFixed(3) + " s" + (e.end != null ? " (over at " + e.end.toFixed(3) + " s)" : " (no leader adopted)");
  }
  function electionColour(i) { return "hsl(" + ((i * 97 + 210) % 360) + ",70%,38%)"; }
  // electionAt is the index of the election under way at t: the latest
  // started at or before t that was not over before t; -1: none.
  function electionAt(t) {
    var es = D.elections || [], k = -1;
    for (var i = 0; i < es.length; i++) if (es[i].start <= t && (es[i].end == null || es[i].end >= t)) k = i;
    return k;
  }
  // seqLabel says what the message carries when its protocol says it
  // ("token from 8, election 1"), its kind otherwise, and the frame.
  function seqLabel(m) { return (m.says || m.kind + " #" + m.seq) + (m.dest ? " →" + m.dest : "") + (m.relay ? " (relay)" : ""); }
  function drawSequence() {
    var S = D.seq, box = document.getElementById("seq");
    box.textContent = "";
    S.nodes = S.nodes || []; // null when no node sent or received in the window
    var relays = document.getElementById("seq-relays").checked;
    var nodeF = +document.getElementById("seq-node").value, elF = +document.getElementById("seq-election").value;
    var eF = elF >= 0 ? D.elections[elF] : null;
    var inElection = function (t) { return !eF || t >= eF.start && t <= (eF.end != null ? eF.end : D.end); };
    var msgs = S.msgs.filter(function (m) {
      return (relays || !m.relay) && inElection(m.t) &&
        (!nodeF || m.from === nodeF || m.recvs.some(function (r) { return r.node === nodeF; }));
    });
    var ex = "Window " + S.from.toFixed(3) + " s – " + S.to.toFixed(3) + " s (" + S.why + "; --window FROM:TO). " +
      (S.truncated ? "Lifelines: the " + S.nodes.length + " nodes with the most sends and receives in the window. " : "Lifelines: all " + S.nodes.length + " nodes. ") +
      (S.ring ? "Columns in ring order (each node's successor to its right; the last one's is the first). " : "") +
      "An arrow goes from a send to every receive matched by (from, seq), labelled by what the message carries (as its protocol says it; otherwise its kind and seq); dashed red: dropped (reason in the tooltip). " +
      "Time runs downwards, one row per distinct instant (rows are not to scale). Orange dots: notes (leader, election, crash, start). " +
      "Protocol messages only: link acknowledgements and retransmissions and routing control (route requests, replies, errors) are not drawn" +
      (relays ? "." : "; relays are hidden.") + " Arrows are coloured as the election under way when they were sent (see the elections above)" +
      (nodeF ? "; only node " + nodeF + "'s sends and receives" : "") + (eF ? "; only " + electionName(eF) : "") +
      (msgs.length < S.msgs.length ? " (" + (S.msgs.length - msgs.length) + " hidden)." : ".");
    if (S.truncated) ex += " " + S.truncated + ".";
    document.getElementById("seq-explain").textContent = ex;
    if (!S.nodes.length) { h("p", { id: "seq-empty" }, box, "No frames in this window."); return; }
    // Rows: for every distinct instant, one row for the receives and notes
    // at it, then one row per frame sent at it (a receive at an instant
    // comes before the sends it causes), so time only runs downwards.
    var recvAt = {}, sendsAt = {}, times = {};
    msgs.forEach(function (m) {
      times[m.t] = 1; (sendsAt[m.t] = sendsAt[m.t] || []).push(m);
      m.recvs.forEach(function (r) { times[r.t] = 1; recvAt[r.t] = 1; });
    });
    S.marks.forEach(function (m) { times[m.t] = 1; recvAt[m.t] = 1; });
    var ts = Object.keys(times).map(Number).sort(function (a, b) { return a - b; });
    var rowOf = {}, nrows = 0, rowT = [];
    ts.forEach(function (t) {
      if (recvAt[t]) { rowOf[t] = nrows++; rowT.push(t); } else rowOf[t] = nrows;
      (sendsAt[t] || []).forEach(function (m) { m.row = nrows++; rowT.push(t); });
    });
    var left = 80, top = 34, rowH = 18;
    // Notes at one node and instant share one dot and one label.
    var marks = {}, order = [];
    S.marks.forEach(function (m) {
      if (nodeF && m.node !== nodeF || !inElection(m.t)) return;
      var k = m.node + "@" + m.t;
      if (!marks[k]) { marks[k] = { node: m.node, t: m.t, texts: [] }; order.push(k); }
      marks[k].texts.push(m.text);
    });
    // Every node has its column, as narrow as the box allows (issue 35):
    // each frame has a row of its own, so its label may run over the
    // next columns (on a white halo); notes at one instant share a row,
    // so a column is at least as wide as their labels. Labels are never
    // cut (issue 22): the diagram is as wide as its longest label
    // reaches (about 5.5 px a character at 10 px), and scrolls.
    var need = 0;
    order.forEach(function (k) { need = Math.max(need, marks[k].texts.join(", ").length * 5.5 + 10); });
    var avail = (box.clientWidth || 1000) - left - 24;
    var colW = Math.max(46, Math.min(110, Math.floor(avail / S.nodes.length)), need);
    var col = {};
    S.nodes.forEach(function (id, k) { col[id] = left + colW * k + colW / 2; });
    var reach = left + colW * S.nodes.length + 10;
    msgs.forEach(function (m) { reach = Math.max(reach, col[m.from] + 4 + seqLabel(m).length * 5.5 + 10); });
    var W = Math.ceil(reach), H = top + rowH * (nrows + 1) + 10;
    var y = function (t) { return top + rowH * (rowOf[t] + 0.5); };
    var yrow = function (k) { return top + rowH * (k + 0.5); };
    var svg = el("svg", { id: "seq-svg", width: W, height: H, viewBox: "0 0 " + W + " " + H }, box);
    var defs = el("defs", {}, svg);
    [["arrowhead", "#1565c0"], ["arrowhead-drop", "#c62828"]].forEach(function (a) {
      var mk = el("marker", { id: a[0], viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0L10,5L0,10z", fill: a[1] }, mk);
    });
    S.nodes.forEach(function (id) {
      el("text", { "class": "lifehead", x: col[id], y: 16 }, svg, String(id));
      el("line", { "class": "lifeline", "data-node": id, x1: col[id], x2: col[id], y1: 22, y2: H - 6 }, svg);
    });
    var lastLabel = "";
    rowT.forEach(function (t, k) {
      var s = t.toFixed(3) + " s";
      if (s !== lastLabel) el("text", { "class": "seq-time", x: 4, y: yrow(k) + 3 }, svg, s);
      lastLabel = s;
    });
    msgs.forEach(function (m) {
      var x1 = col[m.from], y1 = yrow(m.row);
      var label = seqLabel(m);
      var ek = electionAt(m.t); // coloured as the election under way
      el("circle", { cx: x1, cy: y1, r: 2.5, fill: "#1565c0" }, svg);
      if (!m.recvs.length) {
        var st = el("line", { "class": "send-stub", x1: x1, y1: y1, x2: x1 + colW * 0.3, y2: y1 }, svg);
        el("title", {}, st, label + ": no receive at a shown node");
      }
      m.recvs.forEach(function (r) {
        var x2 = col[r.node], y2 = y(r.t);
        if (y2 <= y1) y2 = y1 + rowH * 0.6; // received at the instant it was sent
        if (x2 === undefined) return;
        if (x2 === x1) x2 += 8;
        var a = el("line", { "class": "arrow" + (r.drop ? " drop" : ""), x1: x1, y1: y1, x2: x2, y2: y2, "marker-end": r.drop ? "url(#arrowhead-drop)" : "url(#arrowhead)", "data-kind": m.kind, "data-election": ek }, svg);
        if (!r.drop && ek >= 0) a.style.stroke = electionColour(ek);
        el("title", {}, a, label + " from " + m.from + " at " + m.t.toFixed(6) + " s → " + r.node + " at " + r.t.toFixed(6) + " s" + (r.drop ? " dropped: " + r.drop : ""));
      });
      var kt = el("text", { "class": "kind", x: x1 + 4, y: y1 - 3 }, svg, label);
      el("title", {}, kt, label);
    });
    order.forEach(function (k) {
      var m = marks[k], cx = col[m.node], all = m.texts.join(", ");
      var c = el("circle", { "class": "mark", cx: cx, cy: y(m.t), r: 4 }, svg);
      el("title", {}, c, all);
      var mt = el("text", { "class": "mark-text", x: cx - 6, y: y(m.t) + 11, "text-anchor": "end", "data-node": m.node }, svg, all);
      el("title", {}, mt, all);
    });
  }

  try {
    drawSummary();
    drawTimeline();
    // A mutual exclusion run without an election has no leaders to show.
    if (D.metrics && D.metrics.mutex && !D.leaders.some(function (l) { return l && l.length; })) document.getElementById("timeline-section").hidden = true;
    drawSections();
    drawMap();
    var start = 0, m = /(?:^#|&)t=([0-9.]+)/.exec(location.hash);
    if (m) {
      for (var k = 0; k < D.frames.length; k++) if (D.frames[k].t <= +m[1]) start = k;
    }
    showFrame(start);
    var rl = document.getElementById("seq-relays");
    if (/(?:^#|&)relays=0/.test(location.hash)) rl.checked = false;
    rl.addEventListener("change", drawSequence);
    var sn = document.getElementById("seq-node"), se = document.getElementById("seq-election");
    (D.seq.nodes || []).slice().sort(function (a, b) { return a - b; }).forEach(function (id) { h("option", { value: id }, sn, "node " + id); });
    (D.elections || []).forEach(function (e, i) { h("option", { value: i }, se, electionName(e)); });
    var hn = /(?:^#|&)node=([0-9]+)/.exec(location.hash), he = /(?:^#|&)election=([0-9]+)/.exec(location.hash);
    if (hn) sn.value = hn[1];
    if (he) se.value = he[1];
    sn.addEventListener("change", drawSequence);
    se.addEventListener("change", drawSequence);
    drawSequence();
    document.body.setAttribute("data-ready", "1");
  } catch (err) {
    var e = document.createElement("pre");
    e.id = "error";
    e.textContent = "report script failed: " + err + (err.stack ? "\n" + err.stack : "");
    document.body.insertBefore(e, document.body.firstChild);
    document.body.setAttribute("data-error", String(err));
  }
})();
