// The queries PostGIS is timed on, written once with named parameters so that the same text runs as
// a prepared statement from Node ($1..$4) and as static SQL in the PL/pgSQL timing loop (variables).
//
// `rankedSql` is today's ranking of src/psap/rank.ts, written as a conventional backend would:
//   1. area matches first: PSAPs that are members of an area (county, boundary) that contains the
//      fix or whose border is within the tolerance (the lookup's own test: an odd number of rings
//      contain the fix, or a ring's outline is within the tolerance in the fix's local
//      equirectangular plane, area.ts); then the nearest others, primaries first, each type by
//      distance (geography KNN on the GiST index fetches the candidates);
//   2. within a group: primaries first, then distance (our haversine), then id; nothing beyond
//      500 km.
// For the ranking of "Right PSAP first" (SPEC section 4), change only the `member` and `ranked`
// parts: the tables already hold what it needs (area kinds boundary/place/county, each area's
// ordered member list in area_members.ord, psaps.jurisdiction and psaps.handled_by). The group is
// the area kind (boundary 0, place 1, county 2, nearest 3); whether the fix itself is inside
// (`inside` below) orders areas reached only through the tolerance after; then type with each
// secondary after its handled_by primary, jurisdiction order in area groups, distance.
import { EARTH_RADIUS_KM, KM_PER_DEGREE, MAX_DISTANCE_KM } from "../lookup-contenders.ts";

export interface SqlParams {
  lon: string;
  lat: string;
  /** Border tolerance, km. */
  tol: string;
  lim: string;
}

export const PREPARED: SqlParams = {
  lon: "$1::float8",
  lat: "$2::float8",
  tol: "$3::float8",
  lim: "$4::integer",
};
/** KNN has no tolerance: its prepared statement takes ($1 lon, $2 lat, $3 limit). */
export const PREPARED_KNN: SqlParams = { lon: "$1::float8", lat: "$2::float8", tol: "0", lim: "$3::integer" };
export const PLPGSQL: SqlParams = { lon: "v_lon", lat: "v_lat", tol: "v_tol", lim: "v_lim" };

/** Functions both queries use (inlined by the planner: plain SQL, immutable). */
export const FUNCTIONS = `
-- Our haversine (geo.ts), term for term in the same order, so that both round alike.
CREATE OR REPLACE FUNCTION bench_km(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 2 * ${EARTH_RADIUS_KM}::float8 * asin(least(1::float8, sqrt(
    sin((lat2 - lat1) * (pi() / 180) / 2) * sin((lat2 - lat1) * (pi() / 180) / 2)
    + cos(lat1 * (pi() / 180)) * cos(lat2 * (pi() / 180))
      * sin((lon2 - lon1) * (pi() / 180) / 2) * sin((lon2 - lon1) * (pi() / 180) / 2))))
$$;

-- The lookup's area test (area.ts): inside (an odd number of rings contain the fix) or a ring's
-- outline within the tolerance, measured in the fix's local equirectangular plane (km). In
-- PL/pgSQL so that its plans stay cached for the session, as a tuned backend would write it.
CREATE OR REPLACE FUNCTION bench_area_within(area text, ref_lon float8, lon float8, lat float8, tol_km float8)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE
  x float8 := lon + 360 * round((ref_lon - lon) / 360);
  kx float8 := cos(lat * (pi() / 180)) * ${KM_PER_DEGREE}::float8;
  ky float8 := ${KM_PER_DEGREE}::float8;
BEGIN
  IF EXISTS (SELECT 1 FROM area_rings r WHERE r.area_id = area
             AND ST_DWithin(ST_Affine(r.outline, kx, 0, 0, ky, -x * kx, -lat * ky),
                            'SRID=4326;POINT(0 0)'::geometry, tol_km)) THEN
    RETURN true;
  END IF;
  RETURN (SELECT count(*) FROM area_rings r
          WHERE r.area_id = area AND ST_Intersects(r.ring, ST_SetSRID(ST_MakePoint(x, lat), 4326))) % 2 = 1;
END $$;
`;

function point(p: SqlParams, type: "geometry" | "geography"): string {
  const g = `ST_SetSRID(ST_MakePoint(${p.lon}, ${p.lat}), 4326)`;
  return type === "geography" ? `${g}::geography` : g;
}

/** Geography KNN: the 5 (lim) nearest by sphere distance, through the GiST index. Columns: idx. */
export function knnSql(p: SqlParams): string {
  return `SELECT idx FROM psaps ORDER BY geog <-> ${point(p, "geography")} LIMIT ${p.lim}`;
}

/** Today's ranking (see the top of this file). Columns, best first: idx, km, match. */
export function rankedSql(p: SqlParams): string {
  const tDeg = `(${p.tol} / ${KM_PER_DEGREE}::float8)`;
  const tLon = `(${tDeg} / greatest(cos(${p.lat} * (pi() / 180)), 1e-9) * 1.000001 + 1e-9)`;
  const tLat = `(${tDeg} * 1.000001 + 1e-9)`;
  const box = `ST_MakeEnvelope(${p.lon} - ${tLon}, ${p.lat} - ${tLat}, ${p.lon} + ${tLon}, ${p.lat} + ${tLat}, 4326)`;
  const nearest = (typeRank: number) => `
    SELECT c.idx, c.id, c.type_rank, bench_km(${p.lat}, ${p.lon}, c.lat, c.lon) AS km, 'nearest' AS match, 1 AS grp
    FROM (SELECT idx, id, type_rank, lat, lon FROM psaps WHERE type_rank = ${typeRank}
          ORDER BY geog <-> ${point(p, "geography")}
          LIMIT ${p.lim} + (SELECT count(*) FROM member)) c
    WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.idx = c.idx)`;
  return `
WITH hit AS (
  SELECT a.id, a.kind FROM areas a
  WHERE a.bbox && ${box} AND bench_area_within(a.id, a.ref_lon, ${p.lon}, ${p.lat}, ${p.tol})
),
member AS (
  SELECT m.psap_idx AS idx, min(CASE h.kind WHEN 'boundary' THEN 0 ELSE 1 END) AS kind_rank
  FROM hit h JOIN area_members m ON m.area_id = h.id
  GROUP BY m.psap_idx
),
ranked AS (
  SELECT p.idx, p.id, p.type_rank, bench_km(${p.lat}, ${p.lon}, p.lat, p.lon) AS km,
         CASE m.kind_rank WHEN 0 THEN 'boundary' ELSE 'county' END AS match, 0 AS grp
  FROM member m JOIN psaps p ON p.idx = m.idx
  UNION ALL ${nearest(0)}
  UNION ALL ${nearest(1)}
)
SELECT idx, km, match FROM ranked
WHERE km <= ${MAX_DISTANCE_KM}
ORDER BY grp, type_rank, km, id
LIMIT ${p.lim}`;
}
