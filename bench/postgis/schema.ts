// The PostGIS side's tables, generic over the ranking: PSAPs (with type, jurisdiction and handled_by),
// areas of a kind (`boundary`, `place`, `community`, `town`, `county`) with their rings and an ordered member list.
// Loaded in batches through `unnest`, then indexed (GiST) and analysed.
import type pg from "pg";
import type { SqlArea, SqlDataset } from "../lookup-contenders.ts";

const SCHEMA = `
CREATE EXTENSION IF NOT EXISTS postgis;
DROP TABLE IF EXISTS area_members, area_rings, areas, psaps, bench_points CASCADE;
CREATE TABLE psaps (
  idx integer PRIMARY KEY,          -- position in the data set: what answers are compared by
  id text NOT NULL,
  type text NOT NULL CHECK (type IN ('primary', 'secondary')),
  type_rank smallint NOT NULL,      -- 0 primary, 1 secondary
  jurisdiction text NOT NULL,
  jur_rank smallint NOT NULL,       -- county 0, regional 1, state 2, municipal 3, special 4 (docs/contract.md, section 4)
  handled_by text,
  lat float8 NOT NULL,
  lon float8 NOT NULL,
  geog geography(Point, 4326) NOT NULL
);
CREATE TABLE areas (
  id text PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('boundary', 'place', 'community', 'town', 'county')),
  ref_lon float8 NOT NULL,          -- the fix is unwrapped toward it, as the lookup does
  bbox geometry(Polygon, 4326) NOT NULL
);
CREATE TABLE area_rings (
  area_id text NOT NULL REFERENCES areas,
  ring geometry(Polygon, 4326) NOT NULL,      -- even-odd rule: inside = inside an odd number of rings
  outline geometry(LineString, 4326) NOT NULL
);
CREATE TABLE area_members (
  area_id text NOT NULL REFERENCES areas,
  ord integer NOT NULL,             -- the area's own order of its PSAPs
  psap_idx integer NOT NULL REFERENCES psaps,
  PRIMARY KEY (area_id, ord)
);
CREATE TABLE bench_points (
  set integer NOT NULL,             -- 0 warm-up, 1 timed
  i integer NOT NULL,
  lat float8 NOT NULL,
  lon float8 NOT NULL,
  tol_km float8 NOT NULL,
  PRIMARY KEY (set, i)
);
`;

const INDEXES = `
CREATE INDEX psaps_geog ON psaps USING gist (geog);
-- The ranking takes the nearest of each type: one partial index per type, as a tuned backend would.
CREATE INDEX psaps_geog_primary ON psaps USING gist (geog) WHERE type_rank = 0;
CREATE INDEX psaps_geog_secondary ON psaps USING gist (geog) WHERE type_rank = 1;
CREATE INDEX areas_bbox ON areas USING gist (bbox);
CREATE INDEX area_rings_area ON area_rings (area_id);
CREATE INDEX area_members_psap ON area_members (psap_idx);
ANALYZE;
`;

const BATCH = 20_000;

function ringWkt(ring: number[][]): string {
  const first = ring[0] ?? [0, 0];
  const coords = [...ring, first].map(([x, y]) => `${x} ${y}`).join(",");
  return `(${coords})`;
}

/** The area's bounding box; one crossing the antimeridian (stored unwrapped) spans every longitude. */
function bboxWkt(area: SqlArea): string {
  let minX = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  for (const ring of area.rings)
    for (const [x = 0, y = 0] of ring) {
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x);
      minY = Math.min(minY, y);
      maxY = Math.max(maxY, y);
    }
  if (minX < -180 || maxX > 180) {
    minX = -180;
    maxX = 180;
  }
  return `POLYGON((${minX} ${minY},${maxX} ${minY},${maxX} ${maxY},${minX} ${maxY},${minX} ${minY}))`;
}

/** Creates the tables and loads a data set; returns the seconds it took. */
export async function loadDataset(client: pg.Client, data: SqlDataset): Promise<number> {
  const t0 = performance.now();
  await client.query(SCHEMA);
  for (let i = 0; i < data.psaps.length; i += BATCH) {
    const batch = data.psaps.slice(i, i + BATCH);
    await client.query(
      `INSERT INTO psaps (idx, id, type, type_rank, jurisdiction, jur_rank, handled_by, lat, lon, geog)
       SELECT idx, id, type, CASE type WHEN 'primary' THEN 0 ELSE 1 END, jurisdiction,
              CASE jurisdiction WHEN 'county' THEN 0 WHEN 'regional' THEN 1 WHEN 'state' THEN 2
                                WHEN 'municipal' THEN 3 ELSE 4 END,
              handled_by, lat, lon,
              ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography
       FROM unnest($1::integer[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::float8[])
         AS t(idx, id, type, jurisdiction, handled_by, lat, lon)`,
      [
        batch.map((p) => p.idx),
        batch.map((p) => p.id),
        batch.map((p) => p.type),
        batch.map((p) => p.jurisdiction),
        batch.map((p) => p.handled_by),
        batch.map((p) => p.latitude),
        batch.map((p) => p.longitude),
      ],
    );
  }
  const areaBatch = 500;
  for (let i = 0; i < data.areas.length; i += areaBatch) {
    const batch = data.areas.slice(i, i + areaBatch);
    await client.query(
      `INSERT INTO areas (id, kind, ref_lon, bbox)
       SELECT id, kind, ref_lon, ST_GeomFromText(bbox, 4326)
       FROM unnest($1::text[], $2::text[], $3::float8[], $4::text[]) AS t(id, kind, ref_lon, bbox)`,
      [batch.map((a) => a.id), batch.map((a) => a.kind), batch.map((a) => a.refLon), batch.map(bboxWkt)],
    );
    const rings = batch.flatMap((a) => a.rings.map((r) => [a.id, ringWkt(r)] as const));
    await client.query(
      `INSERT INTO area_rings (area_id, ring, outline)
       SELECT area_id, ST_GeomFromText('POLYGON(' || w || ')', 4326), ST_GeomFromText('LINESTRING' || w, 4326)
       FROM unnest($1::text[], $2::text[]) AS t(area_id, w)`,
      [rings.map((r) => r[0]), rings.map((r) => r[1])],
    );
    const members = batch.flatMap((a) => a.members.map((m, ord) => [a.id, ord, m] as const));
    await client.query(
      `INSERT INTO area_members (area_id, ord, psap_idx)
       SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[])`,
      [members.map((m) => m[0]), members.map((m) => m[1]), members.map((m) => m[2])],
    );
  }
  await client.query(INDEXES);
  return (performance.now() - t0) / 1000;
}

export interface BenchPoint {
  latitude: number;
  longitude: number;
  toleranceKm: number;
}

/** Replaces the points the in-server timing loops run over (set 0: warm-up, set 1: timed). */
export async function loadPoints(
  client: pg.Client,
  set: 0 | 1,
  points: readonly BenchPoint[],
): Promise<void> {
  await client.query("DELETE FROM bench_points WHERE set = $1", [set]);
  await client.query(
    `INSERT INTO bench_points (set, i, lat, lon, tol_km)
     SELECT $1, i - 1, lat, lon, tol FROM unnest($2::float8[], $3::float8[], $4::float8[]) WITH ORDINALITY AS t(lat, lon, tol, i)`,
    [set, points.map((p) => p.latitude), points.map((p) => p.longitude), points.map((p) => p.toleranceKm)],
  );
}

/** Bytes of a table with its indexes and TOAST. */
export async function tableBytes(client: pg.Client, table: string): Promise<number> {
  const r = await client.query<{ bytes: string }>(
    "SELECT pg_total_relation_size($1::regclass)::text AS bytes",
    [table],
  );
  return Number(r.rows[0]?.bytes ?? Number.NaN);
}
