// The patient's country from the fix, US territories as the US, and whether a US PSAP may answer near a border.
import { borders } from "@rapideditor/country-coder";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { haversineKm } from "../../lib/psap-index/geo.ts";
import {
  EMERGENCY_NUMBERS,
  emergencyNumbersFor,
  locateCountry,
  withinReachOfUs,
} from "../../src/emergency/index.ts";
import { nearestUsBorderM } from "../../src/emergency/locate.ts";

const at = (latitude: number, longitude: number) => locateCountry(latitude, longitude);

describe("the country of a fix", () => {
  it("codes the US territories as the US with the territory as the state, and their numbers start with 911", () => {
    const places: [string, number, number, string][] = [
      ["San Juan", 18.4655, -66.1057, "PR"],
      ["Hagåtña", 13.4757, 144.7522, "GU"],
      ["Charlotte Amalie", 18.3419, -64.9307, "VI"],
      ["Pago Pago", -14.2756, -170.7025, "AS"],
      ["Saipan", 15.185, 145.7545, "MP"],
      ["Wake Island", 19.2833, 166.6167, "UM"],
      ["Midway Atoll", 28.2072, -177.3735, "UM"],
    ];
    for (const [name, lat, lon, territory] of places) {
      const location = at(lat, lon);
      expect(location, name).toEqual({ country: "US", state: territory });
      expect(emergencyNumbersFor(location.country, location.state).numbers[0], name).toEqual({
        number: "911",
        service: "all",
      });
    }
  });

  it("leaves the state to the county data in the contiguous states and DC", () => {
    for (const [lat, lon] of [
      [41.88, -87.63], // Chicago
      [38.8977, -77.0365], // Washington, DC
      [48.99, -122.75], // Blaine, WA, by the border
    ] as const) {
      expect(at(lat, lon)).toEqual({ country: "US", state: null });
    }
  });

  it("tells Alaska and Hawaii, which the library draws apart, even where the county shapes miss", () => {
    for (const [lat, lon, state] of [
      [61.22, -149.9, "AK"], // Anchorage
      [51.88, -176.6581, "AK"], // Adak, far out on the Aleutians
      [52.843, 173.179, "AK"], // Attu, across the antimeridian
      [65.758, -168.952, "AK"], // Little Diomede
      [21.31, -157.86, "HI"], // Honolulu
      [19.7, -155.08, "HI"], // Hilo
    ] as const) {
      expect(at(lat, lon), `${lat},${lon}`).toEqual({ country: "US", state });
      expect(emergencyNumbersFor("US", state).numbers[0]?.number).toBe("911");
    }
  });

  it("codes other territories as themselves, so they get their own numbers (Hong Kong dials 999, not 110)", () => {
    expect(at(22.32, 114.17).country).toBe("HK");
    expect(emergencyNumbersFor("HK").numbers[0]?.number).toBe("999");
    expect(at(64.18, -51.72).country).toBe("GL"); // Nuuk
    expect(at(54.15, -4.48).country).toBe("IM"); // Douglas
    expect(at(-20.88, 55.45).country).toBe("RE"); // Saint-Denis, Réunion
    expect(at(12.52, -70.03).country).toBe("AW"); // Oranjestad
    expect(at(36.14, -5.35).country).toBe("GI");
  });

  it("codes ordinary places as their country", () => {
    expect(at(51.5072, -0.1276).country).toBe("GB"); // London
    expect(at(48.8566, 2.3522).country).toBe("FR"); // Paris
    expect(at(35.6762, 139.6503).country).toBe("JP"); // Tokyo
    expect(at(43.6532, -79.3832).country).toBe("CA"); // Toronto
    expect(at(-33.8688, 151.2093).country).toBe("AU"); // Sydney
  });

  it("codes a territory without an ISO code of its own as its country (Ceuta: ES)", () => {
    expect(at(35.89, -5.31).country).toBe("ES");
    expect(at(28.1, -15.43).country).toBe("ES"); // Las Palmas
  });

  it("follows de facto control in disputed areas, and codes Northern Cyprus as CY", () => {
    expect(at(44.95, 34.1).country).toBe("RU"); // Simferopol
    expect(at(27.15, -13.2).country).toBe("MA"); // Laayoune
    expect(at(42.66, 21.16).country).toBe("XK"); // Pristina
    expect(at(25.03, 121.56).country).toBe("TW"); // Taipei
    expect(at(35.19, 33.36).country).toBe("CY"); // North Nicosia
  });

  it("has no country at sea or where no one claims the land, and then offers 112 and 911", () => {
    for (const [lat, lon] of [
      [30, -40], // mid-Atlantic
      [30, -140], // north-east Pacific
      [25, -90], // middle of the Gulf of Mexico
      [0, 0],
      [90, 0], // the North Pole
      [21.87, 33.75], // Bir Tawil
    ] as const) {
      expect(at(lat, lon), `${lat},${lon}`).toEqual({ country: null, state: null });
      expect(emergencyNumbersFor(null).numbers.map((n) => n.number)).toEqual(["112", "911"]);
    }
  });

  it("answers with a country the table has (or none) everywhere on a 1° grid of the world", () => {
    const unknown = new Set<string>();
    for (let lat = -89.5; lat < 90; lat += 1) {
      for (let lon = -179.5; lon < 180; lon += 1) {
        const { country } = at(lat, lon);
        if (country !== null && !(country in EMERGENCY_NUMBERS)) unknown.add(country);
      }
    }
    expect([...unknown]).toEqual([]);
  });
});

/** Border crossings the distance tests sample around: [latitude, longitude]. */
const CROSSINGS: [number, number][] = [
  [42.9, -79.0], // Niagara
  [32.55, -117.0], // San Diego / Tijuana
  [49.0, -123.0], // Blaine / Point Roberts
  [45.2, -67.3], // Calais
];

describe("whether the US is within reach of a fix", () => {
  it("gives a fix in Toronto no US PSAP, and one in Buffalo its own", () => {
    expect(withinReachOfUs(43.6532, -79.3832, 50)).toBe(false);
    expect(withinReachOfUs(43.6532, -79.3832, 5_000)).toBe(false);
    expect(withinReachOfUs(42.8864, -78.8784, 50)).toBe(true);
  });

  it("counts a fix on the US side of a border crossing as in the US, whatever its accuracy", () => {
    for (const [name, lat, lon] of [
      ["Detroit (Renaissance Center)", 42.3293, -83.0398],
      ["Buffalo (Peace Bridge)", 42.9065, -78.9046],
      ["Niagara Falls, NY", 43.0945, -79.0567],
      ["San Ysidro, San Diego", 32.5422, -117.0296],
      ["El Paso", 31.7587, -106.4869],
      ["Blaine, WA", 48.9937, -122.7471],
      ["Point Roberts, WA", 48.985, -123.068],
      ["Calais, ME", 45.1884, -67.2784],
      ["Northwest Angle, MN", 49.345, -95.065],
      ["Derby Line, VT", 45.0053, -72.0996],
    ] as const) {
      expect(withinReachOfUs(lat, lon, 0), name).toBe(true);
      expect(withinReachOfUs(lat, lon, null), name).toBe(true);
    }
  });

  it("counts a fix across the border as in the US only when the border is within its accuracy", () => {
    // [place, latitude, longitude, an accuracy well short of the border, one well past it]
    for (const [name, lat, lon, short, past] of [
      ["Windsor (downtown)", 42.3149, -83.0364, 500, 2_500],
      ["Fort Erie (Peace Bridge)", 42.9075, -78.915, null, 1_500],
      ["Niagara Falls, ON", 43.091, -79.075, null, 1_500],
      ["Tijuana (Zona Centro)", 32.5332, -117.0382, null, 2_000],
      ["Ciudad Juárez (centro)", 31.7392, -106.485, null, 2_000],
      ["White Rock, BC", 49.0253, -122.8029, 1_000, 5_000],
      ["Tsawwassen, BC", 49.017, -123.082, 700, 3_000],
      ["Sarnia, ON", 42.9745, -82.4066, null, 1_500],
    ] as const) {
      expect(at(lat, lon).country, name).not.toBe("US");
      expect(withinReachOfUs(lat, lon, short), `${name} at ${short} m`).toBe(false);
      expect(withinReachOfUs(lat, lon, past), `${name} at ${past} m`).toBe(true);
    }
  });

  it("treats every fix as at least 500 m wide, as the PSAP lookup does at every border", () => {
    // St. Stephen, NB faces Calais, ME across the St. Croix, about 200 m away.
    expect(withinReachOfUs(45.1946, -67.2756, 0)).toBe(true);
  });

  it("measures across the antimeridian (the Aleutians) and across the Bering Strait", () => {
    expect(at(52.0, 179.9).country).toBe("US");
    expect(withinReachOfUs(52.0, -179.9, 500)).toBe(false);
    expect(withinReachOfUs(52.0, -179.9, 20_000)).toBe(true);
    expect(withinReachOfUs(65.78, -169.06, 500)).toBe(false); // Big Diomede (RU)
    expect(withinReachOfUs(65.78, -169.06, 10_000)).toBe(true);
    expect(withinReachOfUs(54.15, -4.48, 100_000)).toBe(false); // Isle of Man: nowhere near the US
  });

  it("agrees with a brute-force great-circle distance to the US borders, up to 2 %", () => {
    const segments = usSegments();
    fc.assert(
      fc.property(
        fixesNearBorders(
          [
            [49.3, -95.1], // Northwest Angle
            [25.5, -80.0], // Miami / Bimini
          ],
          0.8,
        ),
        ({ lat, lon, reachM: radiusM }) => {
          if (at(lat, lon).country === "US") return;
          const referenceM = bruteForceDistanceM(segments, lat, lon, radiusM * 1.1);
          if (Math.abs(referenceM - radiusM) <= radiusM * 0.02) return; // too close to call
          expect(withinReachOfUs(lat, lon, radiusM)).toBe(referenceM <= radiusM);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe("the distance to the nearest US border", () => {
  it("equals a scan of every segment in the same projection (the runs it skips hold none within reach)", () => {
    const segments = usSegments();
    fc.assert(
      fc.property(
        fixesNearBorders(
          [
            [49.0, -100.0], // the 49th parallel
            [29.0, -90.0], // the Gulf coast
            [52.0, -179.9], // the Aleutians, across the antimeridian
            [65.78, -169.06], // the Bering Strait
          ],
          1,
        ),
        ({ lat, lon, reachM: withinM }) => {
          const want = scannedDistanceM(segments, lat, lon);
          const got = nearestUsBorderM(lat, lon, withinM);
          if (want <= withinM) expect(Math.abs(got - want)).toBeLessThanOrEqual(want * 1e-12 + 1e-9);
          else expect(got).toBeGreaterThan(withinM);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

/**
 * A fix up to `spreadDeg` degrees (in latitude and in longitude) from one of the border crossings or
 * `extra` places, with a reach of 500 m to 100 km.
 */
function fixesNearBorders(
  extra: [number, number][],
  spreadDeg: number,
): fc.Arbitrary<{ lat: number; lon: number; reachM: number }> {
  const offset = fc.double({ min: -spreadDeg, max: spreadDeg, noNaN: true });
  return fc
    .tuple(
      fc.constantFrom<[number, number]>(...CROSSINGS, ...extra),
      offset,
      offset,
      fc.double({ min: 500, max: 100_000, noNaN: true }),
    )
    .map(([[lat0, lon0], dLat, dLon, reachM]) => ({ lat: lat0 + dLat, lon: lon0 + dLon, reachM }));
}

/** The module's projection and segment distance, written plainly over every segment (no runs, no boxes). */
function scannedDistanceM(segments: Segment[], lat: number, lon: number): number {
  const perDegree = (6_371_008.8 * Math.PI) / 180;
  const perLonDegree = perDegree * Math.max(Math.cos((lat * Math.PI) / 180), 0.01);
  const wrap = (d: number) => (d > 180 ? d - 360 : d < -180 ? d + 360 : d);
  let best = Number.POSITIVE_INFINITY;
  for (const [lon1, lat1, lon2, lat2] of segments) {
    const ax = wrap(lon1 - lon) * perLonDegree;
    const ay = (lat1 - lat) * perDegree;
    const dx = (lon2 - lon1) * perLonDegree;
    const dy = (lat2 - lat1) * perDegree;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.min(1, Math.max(0, -(ax * dx + ay * dy) / len2));
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

type Segment = [number, number, number, number];

/** Every segment of every US ring as [lon1, lat1, lon2, lat2], read independently of the module under test. */
function usSegments(): Segment[] {
  const segments: Segment[] = [];
  for (const f of borders.features) {
    const { country, iso1A2 } = f.properties;
    const geometry = f.geometry as typeof f.geometry | null;
    if ((country !== "US" && iso1A2 !== "US") || geometry === null) continue;
    const polygons =
      geometry.type === "Polygon"
        ? [geometry.coordinates]
        : geometry.type === "MultiPolygon"
          ? geometry.coordinates
          : [];
    for (const ring of polygons.flat()) {
      for (let i = 1; i < ring.length; i++) {
        const a = ring[i - 1];
        const b = ring[i];
        if (a && b) segments.push([a[0] ?? 0, a[1] ?? 0, b[0] ?? 0, b[1] ?? 0]);
      }
    }
  }
  return segments;
}

/** Great-circle distance to points sampled every ~20 m along the segments near the fix (Infinity beyond `maxM`). */
function bruteForceDistanceM(segments: Segment[], lat: number, lon: number, maxM: number): number {
  const reachDeg = maxM / 111_000 / Math.cos((lat * Math.PI) / 180) + 0.01;
  let best = Number.POSITIVE_INFINITY;
  for (const [lon1, lat1, lon2, lat2] of segments) {
    if (Math.max(lon1, lon2) < lon - reachDeg || Math.min(lon1, lon2) > lon + reachDeg) continue;
    if (Math.max(lat1, lat2) < lat - reachDeg || Math.min(lat1, lat2) > lat + reachDeg) continue;
    // Only the part of the segment inside the reach box matters: sample it densely.
    const lengthKm = haversineKm(lat1, lon1, lat2, lon2);
    const steps = Math.min(200_000, Math.max(1, Math.ceil(lengthKm / 0.02)));
    for (let s = 0; s <= steps; s++) {
      const t = s / steps;
      const pLat = lat1 + t * (lat2 - lat1);
      const pLon = lon1 + t * (lon2 - lon1);
      if (Math.abs(pLat - lat) > reachDeg || Math.abs(pLon - lon) > reachDeg) continue;
      best = Math.min(best, haversineKm(lat, lon, pLat, pLon) * 1000);
    }
  }
  return best;
}
