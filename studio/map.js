"use strict";
// The studio's map, shared with the live page (manetlab/live), drawn with
// the map component every page shares (ManetMap, internal/mapview): the
// nodes at their places coloured by the leader they follow (a leader
// larger with a black ring; a crashed node hatched and dashed), the radio
// links (n.neighbors; a link cut by hand, n.cut, dashed red with a pair
// of scissors), the frames in flight of s.pending whose class is in o.vis
// and what they carry, labels placed where they overlap nothing.
// o: {vis: the frame classes shown, selNode, selLink: [a, b], violation:
// {nodes} to ring as witnesses, decorate(n, x, y): more SVG in a node's
// group}. drawMap returns the projection (ManetMap.fit: at, back, k).
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"})[c]);
const colour = (id) => ManetMap.colour(id);
const MW = 600, MH = 440, R = 9;
function drawMap(svg, s, o) {
  const proj = ManetMap.fit(s.nodes.map((n) => [n.x, n.y]), MW, MH, 34);
  const P = {};
  for (const n of s.nodes) P[n.id] = proj.at(n.x, n.y);
  let h = `<defs><marker id="arrow" viewBox="0 0 10 10" refX="22" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6a1b9a"/></marker></defs>`;
  const isSel = (x, y) => o.selLink && o.selLink[0] === x && o.selLink[1] === y;
  for (const n of s.nodes) {
    for (const [list, cut] of [[n.neighbors || [], false], [n.cut || [], true]]) for (const m of list) {
      const a = P[n.id], b = P[m];
      h += `<g class="linkg${cut ? " cut" : ""}${isSel(n.id, m) ? " sel" : ""}" data-a="${n.id}" data-b="${m}"><line class="link" x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>` +
        `<line class="hit" x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>` +
        (cut ? `<text x="${(a[0] + b[0]) / 2}" y="${(a[1] + b[1]) / 2}" text-anchor="middle" fill="#c62828">✂</text>` : "") + `</g>`;
    }
  }
  const vis = o.vis || [];
  let first = true;
  // Labels: every node's ID first (beside it), then the messages from
  // their origin to their destination (what they carry), placed together.
  const labels = [], obstacles = [];
  const looks = {};
  for (const n of s.nodes) {
    const st = {id: n.id, leader: n.leader, dead: !n.alive && n.crashed, idle: !n.alive && !n.crashed};
    looks[n.id] = ManetMap.look(st, R);
    obstacles.push({x: P[n.id][0], y: P[n.id][1], r: looks[n.id].r + 1});
    labels.push({x: P[n.id][0], y: P[n.id][1], text: String(n.id), px: 12, gap: looks[n.id].r + 3, cls: "id", node: n.id});
  }
  for (const p of s.pending || []) {
    if (p.type !== "deliver" || !vis.includes(p.class)) continue;
    const a = P[p.from];
    const cls = first ? "msg next" : "msg";
    if (p.final && P[p.origin] && P[p.final] && p.class !== "network") {
      const o = P[p.origin], f = P[p.final];
      h += `<g class="logical" data-seq="${p.seq}"><line x1="${o[0]}" y1="${o[1]}" x2="${f[0]}" y2="${f[1]}" stroke="#6a1b9a" stroke-dasharray="6 4" marker-end="url(#arrow)"/><title>${esc(p.line || p.text)}</title></g>`;
      labels.push({x: (o[0] + f[0]) / 2, y: (o[1] + f[1]) / 2, text: p.says ? `${p.says}: ${p.origin}→${p.final}` : `${p.msg} ${p.origin}→${p.final}`, alt: `${p.msg} ${p.origin}→${p.final}`,
        optional: true, px: 11, gap: 4, cls: "msg-label", seq: p.seq});
    }
    if (p.to) {
      const b = P[p.to];
      const mx = a[0] + (b[0] - a[0]) * 0.65, my = a[1] + (b[1] - a[1]) * 0.65;
      h += `<g class="inflight" data-seq="${p.seq}"><line class="${cls}" x1="${a[0]}" y1="${a[1]}" x2="${mx}" y2="${my}"/><circle cx="${mx}" cy="${my}" r="4" fill="#e65100"/><title>${esc(p.line || p.text)}</title></g>`;
    } else {
      h += `<g class="inflight" data-seq="${p.seq}"><circle class="bcast" cx="${a[0]}" cy="${a[1]}" r="${first ? 26 : 20}"/><title>${esc(p.line || p.text)}</title></g>`;
    }
    first = false;
  }
  for (const n of s.nodes) {
    const [x, y] = P[n.id], lk = looks[n.id];
    const c = ["node", n.alive ? "" : "dead", o.selNode === n.id ? "sel" : "", o.violation && o.violation.nodes.includes(n.id) ? "witness" : ""].join(" ");
    h += `<g class="${c}" data-id="${n.id}" data-alive="${n.alive}" data-leader="${n.leader || 0}" data-incs="${!!n.in_cs}">` +
      (o.decorate ? o.decorate(n, x, y) : "") +
      `<circle class="${lk.cls}${n.in_cs ? " incs" : ""}" cx="${x}" cy="${y}" r="${lk.r}" fill="${n.in_cs ? "#ef5350" : lk.fill}" stroke-width="${lk.width}"/>` +
      `<title>node ${n.id}: ${esc(n.alive ? n.describe || "" : n.crashed ? "crashed" : "not started")}</title></g>`;
  }
  const at = ManetMap.place(labels, obstacles, {x: 0, y: 0, w: MW, h: MH});
  h += `<g id="map-labels">`;
  let left = 0;
  labels.forEach((l, i) => {
    if (!at[i]) { left++; return; }
    h += `<text class="mv-label ${l.cls}" x="${at[i].bx.toFixed(1)}" y="${at[i].by.toFixed(1)}" font-size="${l.px}" stroke-width="3"` +
      (l.node ? ` data-node="${l.node}"` : ` data-seq="${l.seq}"`) + `>${esc(at[i].text)}</text>`;
  });
  h += `</g>`;
  if (left) h += `<text class="muted" x="4" y="${MH - 4}" font-size="10" fill="#777">${left} message label(s) left out for room: hover the arrows</text>`;
  svg.innerHTML = h;
  return proj;
}
