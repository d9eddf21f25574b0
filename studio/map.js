"use strict";
// The studio's map, shared with the live page (manetlab/live): the nodes
// at their places coloured by the leader they follow (gold with a star:
// the leader itself; red: in the critical section; hatched and dashed:
// crashed), the radio links (n.neighbors; a link cut by hand, n.cut,
// dashed red with a pair of scissors), and the frames in flight of
// s.pending whose class is in o.vis. drawMap returns the map's scale
// {k, P}: metres to pixels, and every node's place in pixels.
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"})[c]);
function colour(id) { return "hsl(" + ((id * 67) % 360) + ",60%,72%)"; }
// o: {vis: the frame classes shown, selNode, selLink: [a, b], decorate(n, x, y): more SVG in a node's group}
function drawMap(svg, s, o) {
  const xs = s.nodes.map((n) => n.x), ys = s.nodes.map((n) => n.y);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const k = Math.min(540 / Math.max(x1 - x0, 1), 380 / Math.max(y1 - y0, 1));
  const P = {};
  for (const n of s.nodes) P[n.id] = [30 + (n.x - x0) * k, 30 + (n.y - y0) * k];
  let h = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="22" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6a1b9a"/></marker>` +
    `<pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#ddd"/><line x1="0" y1="0" x2="0" y2="5" stroke="#777" stroke-width="2"/></pattern></defs>`;
  const isSel = (x, y) => o.selLink && o.selLink[0] === x && o.selLink[1] === y;
  for (const n of s.nodes) {
    for (const [list, cut] of [[n.neighbors || [], false], [n.cut || [], true]]) for (const m of list) {
      const a = P[n.id], b = P[m];
      if (!b) continue;
      h += `<g class="linkg${cut ? " cut" : ""}${isSel(n.id, m) ? " sel" : ""}" data-a="${n.id}" data-b="${m}"><line class="link" x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>` +
        `<line class="hit" x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>` +
        (cut ? `<text x="${(a[0] + b[0]) / 2}" y="${(a[1] + b[1]) / 2}" text-anchor="middle" fill="#c62828">✂</text>` : "") + `</g>`;
    }
  }
  const vis = o.vis || [];
  let first = true;
  for (const p of s.pending || []) {
    if (p.type !== "deliver" || !vis.includes(p.class)) continue;
    const a = P[p.from];
    const cls = first ? "msg next" : "msg";
    if (p.final && P[p.origin] && P[p.final] && p.class !== "network") {
      const q = P[p.origin], f = P[p.final];
      h += `<g class="logical" data-seq="${p.seq}"><line x1="${q[0]}" y1="${q[1]}" x2="${f[0]}" y2="${f[1]}" stroke="#6a1b9a" stroke-dasharray="6 4" marker-end="url(#arrow)"/>` +
        `<text x="${(q[0] + f[0]) / 2 + 4}" y="${(q[1] + f[1]) / 2 - 4}" fill="#6a1b9a">${esc(p.msg)} ${p.origin}→${p.final}</text></g>`;
    }
    if (p.to) {
      const b = P[p.to];
      const mx = a[0] + (b[0] - a[0]) * 0.65, my = a[1] + (b[1] - a[1]) * 0.65;
      h += `<g class="inflight" data-seq="${p.seq}"><line class="${cls}" x1="${a[0]}" y1="${a[1]}" x2="${mx}" y2="${my}"/><circle cx="${mx}" cy="${my}" r="4" fill="#e65100"/><title>${esc(p.text)}</title></g>`;
    } else {
      h += `<g class="inflight" data-seq="${p.seq}"><circle class="bcast" cx="${a[0]}" cy="${a[1]}" r="${first ? 26 : 20}"/><title>${esc(p.text)}</title></g>`;
    }
    first = false;
  }
  for (const n of s.nodes) {
    const [x, y] = P[n.id];
    let fill = n.leader ? colour(n.leader) : "#fff";
    if (n.leader === n.id) fill = "#ffd54f";
    if (n.in_cs) fill = "#ef5350";
    const c = ["node", n.alive ? "" : "dead", o.selNode === n.id ? "sel" : ""].join(" ");
    h += `<g class="${c}" data-id="${n.id}" data-alive="${n.alive}" data-leader="${n.leader || 0}" data-incs="${!!n.in_cs}">` +
      (o.decorate ? o.decorate(n, x, y) : "") +
      `<circle cx="${x}" cy="${y}" r="13" fill="${fill}"/><text x="${x}" y="${y + 4}" text-anchor="middle">${n.id}</text>` +
      (n.leader === n.id ? `<text x="${x + 12}" y="${y - 10}">★</text>` : "") +
      `<title>${esc(n.describe || "")}</title></g>`;
  }
  svg.innerHTML = h;
  return {k: k, P: P};
}
