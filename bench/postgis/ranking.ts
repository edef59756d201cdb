// The queries PostGIS is timed on, written once with named parameters so that the same text runs as
// a prepared statement from Node ($1..$4) and as static SQL in the PL/pgSQL timing loop (variables).
//
// `rankedSql` is the ranking of docs/contract.md, section 4 (src/psap/rank.ts), written as a conventional backend would:
//   1. the areas whose shape contains the fix or whose border is within the tolerance (the lookup's own
//      test, geometry.ts: an odd number of rings contain the fix; a ring's outline within the tolerance in
//      the fix's local equirectangular plane); each PSAP in its best part, containment first, then group:
//      1 + level * 3 + group (boundary 0; place, community, town 1; county 2), a town's members left out
//      where a city with members of its own contains the fix (the smallest municipality answers), and a
//      statewide centre (jurisdiction state) reached through an area that contains the fix in part 0;
//   2. within a part: primaries by (jurisdiction, distance, id), each secondary right after its own
//      handled_by primary when that primary is in the same part, the other secondaries after them;
//   3. then the nearest others, primaries first, each type by distance (geography KNN on the GiST
//      index fetches the candidates); nothing beyond 500 km.
import { jurisdictionRank } from "../../lib/psap-index/format.ts";
import { EARTH_RADIUS_KM, KM_PER_DEGREE, MAX_DISTANCE_KM } from "../lookup-contenders.ts";

const STATE_RANK = jurisdictionRank("state");

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

-- The lookup's area test (geometry.ts): 0 when the fix is inside (an odd number of rings contain it),
-- 1 when only a ring's outline is within the tolerance, measured in the fix's local equirectangular
-- plane (km), -1 otherwise. In PL/pgSQL so that its plans stay cached for the session.
CREATE OR REPLACE FUNCTION bench_area_level(area text, ref_lon float8, lon float8, lat float8, tol_km float8)
RETURNS integer LANGUAGE plpgsql STABLE AS $$
DECLARE
  x float8 := lon + 360 * round((ref_lon - lon) / 360);
  kx float8 := cos(lat * (pi() / 180)) * ${KM_PER_DEGREE}::float8;
  ky float8 := ${KM_PER_DEGREE}::float8;
BEGIN
  IF (SELECT count(*) FROM area_rings r
      WHERE r.area_id = area AND ST_Intersects(r.ring, ST_SetSRID(ST_MakePoint(x, lat), 4326))) % 2 = 1 THEN
    RETURN 0;
  END IF;
  IF EXISTS (SELECT 1 FROM area_rings r WHERE r.area_id = area
             AND ST_DWithin(ST_Affine(r.outline, kx, 0, 0, ky, -x * kx, -lat * ky),
                            'SRID=4326;POINT(0 0)'::geometry, tol_km)) THEN
    RETURN 1;
  END IF;
  RETURN -1;
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

/** The ranking (see the top of this file). Columns, best first: idx, km, match. */
export function rankedSql(p: SqlParams): string {
  const tDeg = `(${p.tol} / ${KM_PER_DEGREE}::float8)`;
  const tLon = `(${tDeg} / greatest(cos(${p.lat} * (pi() / 180)), 1e-9) * 1.000001 + 1e-9)`;
  const tLat = `(${tDeg} * 1.000001 + 1e-9)`;
  const box = `ST_MakeEnvelope(${p.lon} - ${tLon}, ${p.lat} - ${tLat}, ${p.lon} + ${tLon}, ${p.lat} + ${tLat}, 4326)`;
  const nearest = (typeRank: number) => `
    SELECT c.idx, c.id, bench_km(${p.lat}, ${p.lon}, c.lat, c.lon) AS km, 'nearest' AS match,
           7 AS part, ${typeRank} AS block, 0 AS k1, 0::float8 AS k2, ''::text AS k3, 0 AS k4, 0 AS k5
    FROM (SELECT idx, id, lat, lon FROM psaps WHERE type_rank = ${typeRank}
          ORDER BY geog <-> ${point(p, "geography")}
          LIMIT ${p.lim} + (SELECT count(*) FROM member)) c
    WHERE NOT EXISTS (SELECT 1 FROM member m WHERE m.idx = c.idx)`;
  return `
WITH hit AS (
  SELECT a.id, a.kind, bench_area_level(a.id, a.ref_lon, ${p.lon}, ${p.lat}, ${p.tol}) AS level FROM areas a
  WHERE a.bbox && ${box}
),
smaller AS (
  SELECT EXISTS (SELECT 1 FROM hit s JOIN area_members sm ON sm.area_id = s.id
                 WHERE s.kind = 'place' AND s.level = 0) AS inside
),
member AS (
  SELECT m.psap_idx AS idx,
         min(1 + h.level * 3 + CASE h.kind WHEN 'boundary' THEN 0 WHEN 'county' THEN 2 ELSE 1 END) AS part
  FROM hit h JOIN area_members m ON m.area_id = h.id
  WHERE h.level >= 0 AND NOT (h.kind = 'town' AND h.level = 0 AND (SELECT inside FROM smaller))
  GROUP BY m.psap_idx
),
reach AS (
  SELECT p.idx, p.id, p.type_rank, p.jur_rank, p.handled_by, m.part AS via,
         CASE WHEN m.part <= 3 AND p.jur_rank = ${STATE_RANK} THEN 0 ELSE m.part END AS part,
         bench_km(${p.lat}, ${p.lon}, p.lat, p.lon) AS km
  FROM member m JOIN psaps p ON p.idx = m.idx
),
within AS (SELECT * FROM reach WHERE km <= ${MAX_DISTANCE_KM}),
keyed AS (
  -- A primary and the secondaries that follow it share its key; they come after it (k4), by their own.
  SELECT r.idx, r.id, r.km,
         CASE (r.via - 1) % 3 WHEN 0 THEN 'boundary' WHEN 1 THEN 'city' ELSE 'county' END AS match, r.part,
         CASE WHEN r.type_rank = 0 OR lead.idx IS NOT NULL THEN 0 ELSE 1 END AS block,
         coalesce(lead.jur_rank, r.jur_rank) AS k1, coalesce(lead.km, r.km) AS k2, coalesce(lead.id, r.id) AS k3,
         CASE WHEN lead.idx IS NULL THEN 0 ELSE 1 END AS k4, r.jur_rank AS k5
  FROM within r
  LEFT JOIN within lead ON r.type_rank = 1 AND lead.type_rank = 0 AND lead.id = r.handled_by AND lead.part = r.part
),
ranked AS (
  SELECT idx, id, km, match, part, block, k1, k2, k3, k4, k5 FROM keyed
  UNION ALL ${nearest(0)}
  UNION ALL ${nearest(1)}
)
SELECT idx, km, match FROM ranked
WHERE km <= ${MAX_DISTANCE_KM}
ORDER BY part, block, k1, k2, k3, k4, k5, km, id
LIMIT ${p.lim}`;
}
