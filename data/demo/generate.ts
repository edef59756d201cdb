// Writes demo-psaps.csv: one fictional PSAP at the centre of each of the 50 largest US metro
// areas. Names say "Demo"; phones are in the 555-0100..0199 range reserved for fiction.
// Run: node data/demo/generate.ts (the output is committed; the import reads it with --demo).
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** [city, state, county (Census name), latitude, longitude, area code], largest metro first. */
export const DEMO_METROS: ReadonlyArray<readonly [string, string, string, number, number, string]> = [
  ["New York", "NY", "New York", 40.7128, -74.006, "212"],
  ["Los Angeles", "CA", "Los Angeles", 34.0522, -118.2437, "213"],
  ["Chicago", "IL", "Cook", 41.8781, -87.6298, "312"],
  ["Dallas", "TX", "Dallas", 32.7767, -96.797, "214"],
  ["Houston", "TX", "Harris", 29.7604, -95.3698, "713"],
  ["Washington", "DC", "District of Columbia", 38.9072, -77.0369, "202"],
  ["Philadelphia", "PA", "Philadelphia", 39.9526, -75.1652, "215"],
  ["Miami", "FL", "Miami-Dade", 25.7617, -80.1918, "305"],
  ["Atlanta", "GA", "Fulton", 33.749, -84.388, "404"],
  ["Boston", "MA", "Suffolk", 42.3601, -71.0589, "617"],
  ["Phoenix", "AZ", "Maricopa", 33.4484, -112.074, "602"],
  ["San Francisco", "CA", "San Francisco", 37.7749, -122.4194, "415"],
  ["Riverside", "CA", "Riverside", 33.9806, -117.3755, "951"],
  ["Detroit", "MI", "Wayne", 42.3314, -83.0458, "313"],
  ["Seattle", "WA", "King", 47.6062, -122.3321, "206"],
  ["Minneapolis", "MN", "Hennepin", 44.9778, -93.265, "612"],
  ["San Diego", "CA", "San Diego", 32.7157, -117.1611, "619"],
  ["Tampa", "FL", "Hillsborough", 27.9506, -82.4572, "813"],
  ["Denver", "CO", "Denver", 39.7392, -104.9903, "303"],
  ["Baltimore", "MD", "Baltimore City", 39.2904, -76.6122, "410"],
  ["St. Louis", "MO", "St. Louis City", 38.627, -90.1994, "314"],
  ["Orlando", "FL", "Orange", 28.5383, -81.3792, "407"],
  ["Charlotte", "NC", "Mecklenburg", 35.2271, -80.8431, "704"],
  ["San Antonio", "TX", "Bexar", 29.4241, -98.4936, "210"],
  ["Portland", "OR", "Multnomah", 45.5152, -122.6784, "503"],
  ["Sacramento", "CA", "Sacramento", 38.5816, -121.4944, "916"],
  ["Pittsburgh", "PA", "Allegheny", 40.4406, -79.9959, "412"],
  ["Austin", "TX", "Travis", 30.2672, -97.7431, "512"],
  ["Las Vegas", "NV", "Clark", 36.1699, -115.1398, "702"],
  ["Cincinnati", "OH", "Hamilton", 39.1031, -84.512, "513"],
  ["Kansas City", "MO", "Jackson", 39.0997, -94.5786, "816"],
  ["Columbus", "OH", "Franklin", 39.9612, -82.9988, "614"],
  ["Indianapolis", "IN", "Marion", 39.7684, -86.1581, "317"],
  ["Cleveland", "OH", "Cuyahoga", 41.4993, -81.6944, "216"],
  ["San Jose", "CA", "Santa Clara", 37.3382, -121.8863, "408"],
  ["Nashville", "TN", "Davidson", 36.1627, -86.7816, "615"],
  ["Virginia Beach", "VA", "Virginia Beach City", 36.8529, -75.978, "757"],
  ["Providence", "RI", "Providence", 41.824, -71.4128, "401"],
  ["Jacksonville", "FL", "Duval", 30.3322, -81.6557, "904"],
  ["Milwaukee", "WI", "Milwaukee", 43.0389, -87.9065, "414"],
  ["Raleigh", "NC", "Wake", 35.7796, -78.6382, "919"],
  ["Oklahoma City", "OK", "Oklahoma", 35.4676, -97.5164, "405"],
  ["Memphis", "TN", "Shelby", 35.1495, -90.049, "901"],
  ["Richmond", "VA", "Richmond City", 37.5407, -77.436, "804"],
  ["Louisville", "KY", "Jefferson", 38.2527, -85.7585, "502"],
  ["New Orleans", "LA", "Orleans", 29.9511, -90.0715, "504"],
  ["Salt Lake City", "UT", "Salt Lake", 40.7608, -111.891, "801"],
  ["Hartford", "CT", "Hartford", 41.7658, -72.6734, "860"],
  ["Buffalo", "NY", "Erie", 42.8864, -78.8784, "716"],
  ["Birmingham", "AL", "Jefferson", 33.5186, -86.8104, "205"],
];

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function demoCsv(): string {
  const lines = ["id,name,type,state,county,city,phone,latitude,longitude,location_precision"];
  DEMO_METROS.forEach(([city, state, county, lat, lon, npa], i) => {
    const n = String(i + 1).padStart(2, "0");
    const fields = [
      `demo-${n}`,
      `${city} Demo Emergency Communications Center`,
      "primary",
      state,
      county,
      city,
      `+1${npa}55501${n}`,
      lat.toFixed(4),
      lon.toFixed(4),
      "city",
    ];
    lines.push(fields.map(csvField).join(","));
  });
  return `${lines.join("\n")}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = resolve(dirname(fileURLToPath(import.meta.url)), "demo-psaps.csv");
  writeFileSync(out, demoCsv());
  console.log(`wrote ${out}`);
}
