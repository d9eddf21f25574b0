// ManetMap: the map drawing every page shares (package mapview).
var ManetMap = (function () {
  "use strict";
  // fit projects scenario positions [[x, y], ...] into a box of w × h
  // (page units) with a margin, keeping the aspect ratio; y grows
  // upwards (north up), on every page. It returns the projection and its
  // scale (page units per metre), for moves.
  function fit(points, w, h, margin) {
    var x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    points.forEach(function (p) {
      x0 = Math.min(x0, p[0]); x1 = Math.max(x1, p[0]);
      y0 = Math.min(y0, p[1]); y1 = Math.max(y1, p[1]);
    });
    if (!points.length) { x0 = y0 = 0; x1 = y1 = 1; }
    var k = Math.min((w - 2 * margin) / Math.max(x1 - x0, 1), (h - 2 * margin) / Math.max(y1 - y0, 1));
    var ox = margin + ((w - 2 * margin) - (x1 - x0) * k) / 2, oy = margin + ((h - 2 * margin) - (y1 - y0) * k) / 2;
    return {
      k: k,
      at: function (x, y) { return [ox + (x - x0) * k, oy + (y1 - y) * k]; },
      // back turns a move on the page into metres.
      back: function (dx, dy) { return [dx / k, -dy / k]; }
    };
  }
  // colour is the fill of a node following leader (grey: none), the
  // same on every page.
  function colour(leader) {
    if (!leader) return "#c8c8c8";
    var hue = (leader * 137.508) % 360;
    return "hsl(" + hue.toFixed(1) + ",70%," + (leader % 2 ? "45%" : "58%") + ")";
  }
  // look is how a node is drawn: its class, fill and radius (r: a
  // follower's). A leader (a node following itself) is larger, with a
  // black ring; a crashed node hatched and dashed; a node not started
  // (or without a known leader in a sample) hollow.
  function look(st, r) {
    if (st.dead) return { cls: "mv-node mv-dead", fill: "#fff", r: r, width: r * 0.15 };
    if (st.idle) return { cls: "mv-node mv-idle", fill: "#fff", r: r, width: r * 0.15 };
    var leads = st.leader && st.leader === st.id;
    return { cls: "mv-node" + (leads ? " mv-leader" : ""), fill: colour(st.leader), r: leads ? r * 1.8 : r, width: leads ? r * 0.3 : r * 0.15 };
  }
  var ctx = null;
  // measure is the width of s at font size px (page units), and the
  // font's ascent and descent, as a text element's box has them.
  function measure(s, px) {
    if (!ctx) {
      ctx = document.createElement("canvas").getContext("2d");
      ctx.font = "100px " + (getComputedStyle(document.body).fontFamily || "sans-serif");
    }
    var m = ctx.measureText(s);
    var asc = m.fontBoundingBoxAscent || 92, desc = m.fontBoundingBoxDescent || 24;
    return { w: m.width * px / 100, asc: asc * px / 100, desc: desc * px / 100 };
  }
  function width(s, px) { return measure(s, px).w; }
  function overlaps(a, b) {
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  }
  // place finds where each label goes: labels [{x, y, text, px, gap}]
  // are anchored at (x, y) (a node's centre, an arrow's middle) and put
  // beside it, at gap from it, where they overlap no other label, no
  // node (obstacles: [{x, y, r}]) and stay inside box {x, y, w, h}; the
  // earlier labels first. A label that finds no free place is tried in
  // its shorter form (alt), then, if optional, left out (null: its
  // arrow's tooltip says it). It returns, for each, the box {x, y, w, h}
  // of its text (x, y: top left), the baseline to draw it at (bx, by,
  // with text-anchor start) and the text placed; or null.
  function place(labels, obstacles, box) {
    var placed = obstacles.map(function (o) { return { x: o.x - o.r, y: o.y - o.r, w: 2 * o.r, h: 2 * o.r }; });
    var dirs = [[1, -1], [1, 1], [-1, -1], [-1, 1], [0, -1], [0, 1], [1, 0], [-1, 0]];
    function spot(l, text) {
      var mt = measure(text, l.px), tw = mt.w + 1, th = mt.asc + mt.desc + 1, best = null, bestCost = Infinity;
      for (var ring = 1; ring <= 8 && bestCost >= 1; ring++) {
        for (var d = 0; d < dirs.length && bestCost >= 1; d++) {
          var g = l.gap * (ring === 1 ? 1 : 0.8 + ring * 0.6), dx = dirs[d][0], dy = dirs[d][1];
          var bx = dx > 0 ? l.x + g * 0.75 : dx < 0 ? l.x - g * 0.75 - tw : l.x - tw / 2;
          var by = dy < 0 ? l.y - g * 0.75 - th : dy > 0 ? l.y + g * 0.75 : l.y - th / 2;
          var b = { x: bx, y: by, w: tw, h: th }, cost = ring * 0.001;
          if (b.x < box.x || b.y < box.y || b.x + b.w > box.x + box.w || b.y + b.h > box.y + box.h) cost += 1000;
          for (var k = 0; k < placed.length; k++) if (overlaps(b, placed[k])) cost += 10;
          if (cost < bestCost) { bestCost = cost; best = b; }
        }
      }
      return { b: best, cost: bestCost, asc: mt.asc };
    }
    return labels.map(function (l) {
      var text = l.text, s = spot(l, text);
      if (s.cost >= 1 && l.alt) { text = l.alt; s = spot(l, text); }
      if (s.cost >= 1 && l.optional) return null;
      var b = s.b;
      placed.push(b);
      return { x: b.x, y: b.y, w: b.w, h: b.h, bx: b.x + 0.5, by: b.y + 0.5 + s.asc, text: text };
    });
  }
  // The hatching of a crashed node (mapview.css's mv-dead), defined once
  // in the page for every map on it.
  function hatch() {
    if (document.getElementById("mv-hatch")) return;
    var d = document.createElement("div");
    d.innerHTML = '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><pattern id="mv-hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#eee"/><line x1="0" y1="0" x2="0" y2="5" stroke="#888" stroke-width="2"/></pattern></defs></svg>';
    document.body.appendChild(d.firstChild);
  }
  if (document.body) hatch(); else document.addEventListener("DOMContentLoaded", hatch);
  return { fit: fit, colour: colour, look: look, width: width, place: place, overlaps: overlaps };
})();
