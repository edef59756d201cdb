// Test PSAPs: a minimal indexed record at a point, for lookup and ranking tests.
import type { IndexedPsap } from "../../lib/psap-index/format.ts";

export function psap(
  id: string,
  latitude: number,
  longitude: number,
  type: IndexedPsap["type"] = "primary",
): IndexedPsap {
  return {
    id,
    name: `PSAP ${id}`,
    type,
    state: "ZZ",
    county: null,
    city: null,
    phone: null,
    phone_kind: null,
    lines: [],
    jurisdiction: "county",
    handled_by: null,
    latitude,
    longitude,
    location_precision: "city",
  };
}
