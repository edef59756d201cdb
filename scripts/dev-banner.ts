// The short banner `npm run dev` prints once the server is up.

export interface BannerInput {
  url: string;
  platformId: string;
  apiKey: string;
  links: { label: string; url: string }[];
}

export function bannerLines(input: BannerInput): string[] {
  const rows: [string, string][] = [
    ["Server", input.url],
    ["Admin token", "ADMIN_TOKEN in .dev.vars (Authorization: Bearer ...)"],
    ["Demo platform", input.platformId],
    ["Demo API key", `${input.apiKey} (X-API-Key)`],
    ...input.links.map((link): [string, string] => [link.label, link.url]),
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const body = rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`);
  const tryIt =
    `  curl -X POST ${input.url}/v1/platforms/${input.platformId}/sessions -H 'X-API-Key: ${input.apiKey}' ` +
    `-H 'Content-Type: application/json' -d '{"meeting_id":"m1","counselor_id":"c1","patient_id":"p1"}'`;
  return ["", "  SOS service: local development", "", ...body, "", "  Create a session:", tryIt, ""];
}
