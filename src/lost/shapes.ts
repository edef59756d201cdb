// The fix a LoST location stands for: RFC 5491's geodetic shapes (GML in PIDF-LO) read as one point and
// an accuracy in metres, the way the session API takes a browser's fix. A Point is itself; a Circle is its
// centre with its radius; every other shape is answered from its centroid, with the farthest reach of the
// shape from that centroid as the accuracy.
import type { Element } from "@xmldom/xmldom";
import { haversineKm, KM_PER_DEGREE } from "../../lib/psap-index/geo.ts";
import { childElements, GEO_SHAPES_NS, GML_NS } from "./xml.ts";

/** The coordinate reference systems RFC 5491 allows: WGS 84 in two and in three dimensions. */
const CRS = new Set(["urn:ogc:def:crs:EPSG::4326", "urn:ogc:def:crs:EPSG::4979"]);
const METRES = "urn:ogc:def:uom:EPSG::9001";

/** A fix, and the qualified names of the shape's elements that were read (for LoST's `locationValidation`). */
export interface ShapeFix {
  latitude: number;
  longitude: number;
  /** Metres. */
  accuracy: number;
  /** The shape's element names as read, prefixed the way the answer declares them (gml:, gs:). */
  elements: string[];
}

/** A shape that cannot be read: answered with `badRequest` and this message. */
export class BadShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BadShapeError";
  }
}

const prefixOf = (el: Element) => (el.namespaceURI === GML_NS ? "gml" : "gs");

function child(parent: Element, ns: string, name: string): Element | null {
  return childElements(parent).find((c) => c.namespaceURI === ns && c.localName === name) ?? null;
}

function number(text: string | null | undefined, what: string): number {
  const value = Number((text ?? "").trim());
  if ((text ?? "").trim() === "" || !Number.isFinite(value))
    throw new BadShapeError(`${what} is not a number`);
  return value;
}

/** "lat lon" (or "lat lon alt" in EPSG::4979) as [lat, lon], checked. */
function position(text: string | null | undefined, what: string): [number, number] {
  const parts = (text ?? "").trim().split(/\s+/);
  if (parts.length < 2 || parts.length > 3) throw new BadShapeError(`${what} must be "latitude longitude"`);
  const lat = number(parts[0], `${what}'s latitude`);
  const lon = number(parts[1], `${what}'s longitude`);
  if (Math.abs(lat) > 90 || Math.abs(lon) > 180) throw new BadShapeError(`${what} is out of range`);
  return [lat, lon];
}

/** A length in metres (RFC 5491 gives them in EPSG::9001, metres; no other unit is taken). */
function metres(parent: Element, name: string, elements: string[]): number {
  const el = child(parent, GEO_SHAPES_NS, name);
  if (!el) throw new BadShapeError(`the ${parent.localName} has no ${name}`);
  const uom = el.getAttribute("uom");
  if (uom && uom !== METRES) throw new BadShapeError(`${name} must be in metres (${METRES})`);
  const value = number(el.textContent, name);
  if (value < 0) throw new BadShapeError(`${name} must not be negative`);
  elements.push(`gs:${name}`);
  return value;
}

function centre(shape: Element, elements: string[]): [number, number] {
  const pos = child(shape, GML_NS, "pos");
  if (!pos) throw new BadShapeError(`the ${shape.localName} has no gml:pos`);
  elements.push("gml:pos");
  return position(pos.textContent, "gml:pos");
}

/** The positions of a polygon's exterior ring: a gml:posList, or one gml:pos after another. */
function exteriorRing(polygon: Element, elements: string[]): [number, number][] {
  const exterior = child(polygon, GML_NS, "exterior");
  const ring = exterior ? child(exterior, GML_NS, "LinearRing") : null;
  if (!ring) throw new BadShapeError(`the ${polygon.localName} has no gml:exterior gml:LinearRing`);
  elements.push("gml:exterior", "gml:LinearRing");
  const list = child(ring, GML_NS, "posList");
  const points: [number, number][] = [];
  if (list) {
    elements.push("gml:posList");
    const values = (list.textContent ?? "").trim().split(/\s+/);
    const dim = Number(list.getAttribute("srsDimension") ?? "2") === 3 ? 3 : 2;
    if (values.length % dim !== 0) throw new BadShapeError("gml:posList holds an incomplete position");
    for (let i = 0; i < values.length; i += dim)
      points.push(position(values.slice(i, i + 2).join(" "), "gml:posList"));
  } else {
    for (const pos of childElements(ring).filter((c) => c.namespaceURI === GML_NS && c.localName === "pos"))
      points.push(position(pos.textContent, "gml:pos"));
    if (points.length > 0) elements.push("gml:pos");
  }
  if (points.length < 4) throw new BadShapeError("a polygon's ring needs at least 4 positions");
  return points;
}

/** The area-weighted centroid of a ring (in the ring's local plane), and its farthest vertex from it, metres. */
function ringCentroid(points: readonly [number, number][]): ShapeFix {
  const [lat0, lon0] = points[0] as [number, number];
  const k = Math.cos((lat0 * Math.PI) / 180);
  let a = 0;
  let cx = 0;
  let cy = 0;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const [yi, xi] = points[i] as [number, number];
    const [yj, xj] = points[j] as [number, number];
    const f = (xj - lon0) * k * (yi - lat0) - (xi - lon0) * k * (yj - lat0);
    a += f;
    cx += ((xj - lon0) * k + (xi - lon0) * k) * f;
    cy += (yj - lat0 + (yi - lat0)) * f;
  }
  const latitude = a === 0 ? lat0 : lat0 + cy / (3 * a);
  const longitude = a === 0 ? lon0 : lon0 + cx / (3 * a) / k;
  const accuracy = Math.max(...points.map(([lat, lon]) => haversineKm(latitude, longitude, lat, lon) * 1000));
  return { latitude, longitude, accuracy, elements: [] };
}

/** The point of an arc band halfway along its opening angle and between its radii, and its farthest reach. */
function arcBand(shape: Element, elements: string[]): ShapeFix {
  const [lat, lon] = centre(shape, elements);
  const inner = metres(shape, "innerRadius", elements);
  const outer = metres(shape, "outerRadius", elements);
  const start = angle(shape, "startAngle", elements);
  const opening = angle(shape, "openingAngle", elements);
  const bearing = ((start + opening / 2) * Math.PI) / 180;
  const mid = (inner + outer) / 2;
  const mPerDegree = KM_PER_DEGREE * 1000;
  const dLat = (mid * Math.cos(bearing)) / mPerDegree;
  const dLon = (mid * Math.sin(bearing)) / (mPerDegree * Math.cos((lat * Math.PI) / 180));
  // The band lies within the outer radius of its centre: from the midpoint, at most that far again.
  return { latitude: lat + dLat, longitude: lon + dLon, accuracy: outer + mid, elements };
}

function angle(shape: Element, name: string, elements: string[]): number {
  const el = child(shape, GEO_SHAPES_NS, name);
  if (!el) throw new BadShapeError(`the ${shape.localName} has no ${name}`);
  elements.push(`gs:${name}`);
  const value = number(el.textContent, name);
  // RFC 5491 gives angles in degrees (EPSG::9102), or radians (EPSG::9101).
  return el.getAttribute("uom") === "urn:ogc:def:uom:EPSG::9101" ? (value * 180) / Math.PI : value;
}

/** The fix of the shape element of a geodetic location (its child in the `location` element). */
export function readShape(shape: Element): ShapeFix {
  const srs = shape.getAttribute("srsName");
  if (srs && !CRS.has(srs))
    throw new BadShapeError("the shape's srsName is not WGS 84 (EPSG::4326 or EPSG::4979)");
  const elements = [`${prefixOf(shape)}:${shape.localName}`];
  const ns = shape.namespaceURI;
  const name = shape.localName;
  if (ns === GML_NS && name === "Point") {
    const [latitude, longitude] = centre(shape, elements);
    return { latitude, longitude, accuracy: 0, elements };
  }
  if (ns === GEO_SHAPES_NS && (name === "Circle" || name === "Sphere")) {
    const [latitude, longitude] = centre(shape, elements);
    return { latitude, longitude, accuracy: metres(shape, "radius", elements), elements };
  }
  if (ns === GEO_SHAPES_NS && (name === "Ellipse" || name === "Ellipsoid")) {
    const [latitude, longitude] = centre(shape, elements);
    const major = metres(shape, "semiMajorAxis", elements);
    metres(shape, "semiMinorAxis", elements);
    return { latitude, longitude, accuracy: major, elements };
  }
  if (ns === GEO_SHAPES_NS && name === "ArcBand") return arcBand(shape, elements);
  if (ns === GML_NS && name === "Polygon")
    return { ...ringCentroid(exteriorRing(shape, elements)), elements };
  if (ns === GEO_SHAPES_NS && name === "Prism") {
    const base = child(shape, GEO_SHAPES_NS, "base");
    const polygon = base ? child(base, GML_NS, "Polygon") : null;
    if (!polygon) throw new BadShapeError("the Prism has no gs:base gml:Polygon");
    elements.push("gs:base", "gml:Polygon");
    return { ...ringCentroid(exteriorRing(polygon, elements)), elements };
  }
  // Named by what it is not: the element's name is the caller's text.
  throw new BadShapeError(
    "the location's shape is not a geodetic shape of RFC 5491 (Point, Circle, Sphere, Ellipse, Ellipsoid, ArcBand, Polygon, Prism)",
  );
}
