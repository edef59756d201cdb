// The console's small map: the county outlines around the patient's fix (from counties/<state>.json,
// which `npm run build:sdk` cuts from us-atlas), the fix with its accuracy, and the call centres in view:
// the first (red, "1") drawn on top of the others, and markers at the same spot spread around it.

import { countyInSentence } from "./county-names.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 320;
const H = 240;
/** The view never gets narrower or wider than this many km, so a tiny or a huge county still reads. */
const MIN_KM = 8;
const MAX_KM = 160;
const KM_PER_DEG = 111.2;
/** Marker radius, px; two markers closer than twice this overlap. */
const MARKER_R = 9;
/** How close to the patient's dot a marker may sit before it is moved aside, px. */
const PATIENT_CLEAR = 12;

const shapes = new Map();

/** The state's county shapes, fetched once; null when there are none (outside the US, or not built). */
function countiesOf(state) {
  if (!state) return Promise.resolve(null);
  if (!shapes.has(state)) {
    const url = new URL(`counties/${encodeURIComponent(state)}.json`, import.meta.url);
    shapes.set(
      state,
      fetch(url)
        .then((r) => (r.ok ? r.json() : null))
        .then((d) => d?.counties ?? null)
        .catch(() => null),
    );
  }
  return shapes.get(state);
}

function node(tag, attrs, text) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Even-odd point in polygon over every ring of a county (rings are flat lon, lat lists). */
function contains(county, lon, lat) {
  let inside = false;
  for (const r of county.rings) {
    for (let i = 0, j = r.length - 2; i < r.length; j = i, i += 2) {
      const [xi, yi, xj, yj] = [r[i], r[i + 1], r[j], r[j + 1]];
      if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

function bbox(county) {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  for (const r of county.rings) {
    for (let i = 0; i < r.length; i += 2) {
      b[0] = Math.min(b[0], r[i]);
      b[1] = Math.min(b[1], r[i + 1]);
      b[2] = Math.max(b[2], r[i]);
      b[3] = Math.max(b[3], r[i + 1]);
    }
  }
  return b;
}

/**
 * Draws into `svg` and returns a one-line description, for its label and the caption.
 * `result` is what the counselor SDK's onPSAPResults gave.
 */
export async function drawMap(svg, result) {
  const { location: fix, psaps, area } = result;
  const counties = (await countiesOf(area?.country === "US" ? area.state : null)) || [];
  const home = counties.find((c) => contains(c, fix.longitude, fix.latitude));
  const homeName = home ? countyInSentence(home.name, area.state, home.id) : "";
  const k = Math.cos((fix.latitude * Math.PI) / 180);
  // The view: the patient's county (or a box around the fix), plus the first centre when it is near.
  let [x0, y0, x1, y1] = home ? bbox(home) : [fix.longitude, fix.latitude, fix.longitude, fix.latitude];
  const first = psaps[0];
  if (first && first.distance_km <= 60) {
    x0 = Math.min(x0, first.longitude);
    x1 = Math.max(x1, first.longitude);
    y0 = Math.min(y0, first.latitude);
    y1 = Math.max(y1, first.latitude);
  }
  const spanKm = Math.min(MAX_KM, Math.max(MIN_KM, (x1 - x0) * k * KM_PER_DEG, (y1 - y0) * KM_PER_DEG));
  // Centred on the county when it fits, else on the fix.
  const fits = spanKm < MAX_KM;
  const cx = fits ? (x0 + x1) / 2 : fix.longitude;
  const cy = fits ? (y0 + y1) / 2 : fix.latitude;
  const pxPerKm = (Math.min(W, H) - 24) / spanKm;
  const at = (lon, lat) => [
    W / 2 + (lon - cx) * k * KM_PER_DEG * pxPerKm,
    H / 2 - (lat - cy) * KM_PER_DEG * pxPerKm,
  ];
  const inView = (x, y) => x >= 0 && x <= W && y >= 0 && y <= H;

  svg.replaceChildren();
  svg.append(node("rect", { width: W, height: H, fill: "#fbfcfd" }));
  for (const c of counties) {
    const b = bbox(c);
    const [bx0, by1] = at(b[0], b[1]);
    const [bx1, by0] = at(b[2], b[3]);
    if (bx1 < 0 || bx0 > W || by1 < 0 || by0 > H) continue;
    const mine = c === home;
    svg.append(
      node("path", {
        d: pathOf(c, at),
        "fill-rule": "evenodd",
        fill: mine ? "#e6eefb" : "#f1f3f6",
        stroke: mine ? "#1f5fbf" : "#b8c1cc",
        "stroke-width": mine ? 2 : 0.8,
      }),
    );
  }
  // The patient's county drawn again on top, so its neighbours' edges never cover its outline.
  if (home)
    svg.append(node("path", { d: pathOf(home, at), fill: "none", stroke: "#1f5fbf", "stroke-width": 2 }));

  const [px, py] = at(fix.longitude, fix.latitude);
  const accPx = ((fix.accuracy ?? 0) / 1000) * pxPerKm;
  if (accPx > 3)
    svg.append(node("circle", { cx: px, cy: py, r: accPx, fill: "#1f5fbf", "fill-opacity": 0.15 }));
  svg.append(node("circle", { cx: px, cy: py, r: 6, fill: "#1f5fbf", stroke: "#fff", "stroke-width": 2 }));
  const markers = spreadMarkers(
    psaps.flatMap((p, rank) => {
      const [x, y] = at(p.longitude, p.latitude);
      return inView(x, y) ? [{ rank, x, y }] : [];
    }),
    { x: px, y: py },
  );
  // A moved marker keeps a thin line to where the centre is.
  for (const m of markers)
    if (m.x !== m.atX || m.y !== m.atY)
      svg.append(
        node("line", { x1: m.atX, y1: m.atY, x2: m.x, y2: m.y, stroke: "#5b6675", "stroke-width": 1 }),
      );
  // Last ranks first, so the centre to call first is drawn on top of every other.
  for (const m of [...markers].sort((a, b) => b.rank - a.rank)) {
    const first = m.rank === 0;
    svg.append(
      node("circle", {
        cx: m.x,
        cy: m.y,
        r: radiusOf(m.rank),
        fill: first ? "#b42318" : "#5b6675",
        stroke: "#fff",
        "stroke-width": 2,
      }),
    );
    svg.append(
      node(
        "text",
        { x: m.x, y: m.y + 4, "text-anchor": "middle", "font-size": 11, "font-weight": 700, fill: "#fff" },
        m.rank + 1,
      ),
    );
  }
  const shown = psaps.filter((p) => inView(...at(p.longitude, p.latitude))).length;
  return `The patient's location${home ? ` in ${homeName} (outlined)` : ""}, a view about ${Math.round(spanKm)} km across, with ${shown} of ${psaps.length} call centres in it.`;
}

/** A marker's radius: the centre to call first is drawn a little larger. */
const radiusOf = (rank) => (rank === 0 ? MARKER_R + 2 : MARKER_R);

/**
 * Where to draw each marker (`points` in rank order, in px) so that none hides another or the patient's
 * dot: markers closer than a marker's width form a group, drawn around the group's first point on a small
 * circle, the best-ranked at the top; a lone marker on the patient's dot is moved just above it; then
 * markers that still touch (neighbouring groups) are pushed apart. Each result keeps where the centre
 * really is (`atX`, `atY`), for a leader line.
 */
export function spreadMarkers(points, patient) {
  const groups = [];
  for (const p of points) {
    const group = groups.find((g) => Math.hypot(g[0].x - p.x, g[0].y - p.y) < 2 * MARKER_R);
    if (group) group.push(p);
    else groups.push([p]);
  }
  const placed = groups.flatMap((group) => {
    const [anchor] = group;
    const onPatient = Math.hypot(anchor.x - patient.x, anchor.y - patient.y) < PATIENT_CLEAR;
    if (group.length === 1)
      return [{ ...anchor, atX: anchor.x, atY: anchor.y, y: onPatient ? anchor.y - 2 * MARKER_R : anchor.y }];
    // A circle on which neighbours stand apart (the chord between two is wider than two markers).
    const radius = Math.max(2 * MARKER_R, (MARKER_R + 3) / Math.sin(Math.PI / group.length));
    return group.map((p, k) => {
      const angle = -Math.PI / 2 + (2 * Math.PI * k) / group.length;
      return {
        ...p,
        atX: p.x,
        atY: p.y,
        x: anchor.x + radius * Math.cos(angle),
        y: anchor.y + radius * Math.sin(angle),
      };
    });
  });
  // Neighbouring groups can still touch: push each touching pair apart, a little at a time.
  for (let round = 0; round < 60; round++) {
    let moved = false;
    for (const a of placed)
      for (const b of placed) {
        if (a.rank >= b.rank) continue;
        const need = radiusOf(a.rank) + radiusOf(b.rank) + 2;
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const d = Math.hypot(dx, dy);
        if (d >= need) continue;
        const [ux, uy] = d > 0 ? [dx / d, dy / d] : [0, 1];
        const push = (need - d) / 2 + 0.1;
        a.x -= ux * push;
        a.y -= uy * push;
        b.x += ux * push;
        b.y += uy * push;
        moved = true;
      }
    if (!moved) break;
  }
  return placed;
}

/** An SVG path of every ring of a county, projected by `at`. */
function pathOf(county, at) {
  return county.rings
    .map((r) => {
      const pts = [];
      for (let i = 0; i < r.length; i += 2)
        pts.push(
          at(r[i], r[i + 1])
            .map((v) => v.toFixed(1))
            .join(" "),
        );
      return `M${pts.join("L")}Z`;
    })
    .join("");
}
