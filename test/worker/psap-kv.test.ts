// The lookup on a real KV binding inside workerd: no index, an index, and the pointer switch.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type BuiltIndex, buildIndex } from "../../src/psap/build.ts";
import {
  lookupPsaps,
  type PsapIndexStore,
  PsapIndexUnavailableError,
  resetPsapLookupCache,
} from "../../src/psap/lookup.ts";
import type { IndexedPsap, PsapDataset } from "../../src/psap/types.ts";

// A real KVNamespace satisfies the store interface (checked by the type checker).
const store: PsapIndexStore = env.PSAP_INDEX;

function psap(id: string, latitude: number, longitude: number): IndexedPsap {
  return {
    id,
    name: `Test PSAP ${id}`,
    type: "primary",
    state: "IL",
    county: "Cook",
    city: "Chicago",
    phone: "+13125550100",
    phone_kind: "administrative",
    jurisdiction: "municipal",
    handled_by: null,
    latitude,
    longitude,
    location_precision: "building",
  };
}

const cook: PsapDataset = {
  dataVersion: "worker-test-v1",
  psaps: [psap("inside", 41.88, -87.63), psap("nearby", 41.6, -87.3)],
  areas: [
    {
      id: "17031",
      kind: "county",
      rings: [
        [
          [-88.3, 41.45],
          [-87.5, 41.45],
          [-87.5, 42.15],
          [-88.3, 42.15],
          [-88.3, 41.45],
        ],
      ],
      psapIds: ["inside"],
    },
  ],
};

async function load(built: BuiltIndex): Promise<void> {
  await Promise.all([...built.buckets].map(([k, v]) => env.PSAP_INDEX.put(k, v)));
  await env.PSAP_INDEX.put(built.pointerKey, built.pointerValue);
}

describe("PSAP lookup on Workers KV", () => {
  it("reports an unavailable index before any import", async () => {
    resetPsapLookupCache();
    const err = await lookupPsaps(store, { latitude: 41.88, longitude: -87.63 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PsapIndexUnavailableError);
  });

  it("answers from a loaded index and switches versions through the pointer only", async () => {
    resetPsapLookupCache();
    const v1 = buildIndex(cook, { version: "w1" });
    await load(v1);
    const first = await lookupPsaps(store, { latitude: 41.85, longitude: -87.65, accuracy: 30 });
    expect(first.data_version).toBe("worker-test-v1");
    expect(first.psaps.map((p) => [p.id, p.match])).toEqual([
      ["inside", "county"],
      ["nearby", "nearest"],
    ]);
    expect(first.psaps[0]).toMatchObject({
      phone: "+13125550100",
      location_precision: "building",
      distance_km: 3.7,
    });

    const v2 = buildIndex(
      { ...cook, dataVersion: "worker-test-v2", psaps: [psap("only", 41.9, -87.7)], areas: [] },
      { version: "w2" },
    );
    await Promise.all([...v2.buckets].map(([k, v]) => env.PSAP_INDEX.put(k, v)));
    resetPsapLookupCache();
    expect((await lookupPsaps(store, { latitude: 41.85, longitude: -87.65 })).data_version).toBe(
      "worker-test-v1",
    );
    await env.PSAP_INDEX.put(v2.pointerKey, v2.pointerValue);
    resetPsapLookupCache();
    const second = await lookupPsaps(store, { latitude: 41.85, longitude: -87.65 });
    expect(second.data_version).toBe("worker-test-v2");
    expect(second.psaps.map((p) => p.id)).toEqual(["only"]);
    // The old version stays readable for isolates that still hold its pointer.
    const oldKey = [...v1.buckets.keys()][0] as string;
    expect(await env.PSAP_INDEX.get(oldKey, "text")).not.toBeNull();
  });

  it("answers outside_coverage far from every PSAP", async () => {
    resetPsapLookupCache();
    await load(buildIndex(cook, { version: "w3" }));
    const r = await lookupPsaps(store, { latitude: -33.87, longitude: 151.21 });
    expect(r).toMatchObject({ psaps: [], data_version: "worker-test-v1", reason: "outside_coverage" });
  });
});
