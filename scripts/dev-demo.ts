// The demo platform of `npm run dev`: its rows in the local D1 (written directly, before the server
// runs), and the links the banner prints to a fresh demo session (tokens in the URL fragment, which
// browsers never send to a server or log).
import { hashApiKey } from "../src/auth/api-key.ts";

export interface DemoPlatform {
  platformId: string;
  apiKey: string;
}

/**
 * SQL that makes the demo platform and its key usable, on every run: created if missing (a wiped
 * database), un-revoked if a test revoked it. The key is stored only as its hash, its id derived from it.
 */
export async function demoPlatformSql(demo: DemoPlatform, now = new Date()): Promise<string> {
  // Interpolated below: only the formats we generate (no quoting games in SQL).
  if (!/^plt_[0-9A-Za-z]+$/.test(demo.platformId) || !/^sk_live_[0-9A-Za-z]+$/.test(demo.apiKey)) {
    throw new Error("malformed demo platform id or API key");
  }
  const hash = await hashApiKey(demo.apiKey);
  const at = now.toISOString();
  return [
    `INSERT OR IGNORE INTO platforms (id, name, created_at) VALUES ('${demo.platformId}', 'Demo platform (npm run dev)', '${at}');`,
    `INSERT OR IGNORE INTO api_keys (id, platform_id, key_hash, created_at) VALUES ('key_demo${hash.slice(0, 20)}', '${demo.platformId}', '${hash}', '${at}');`,
    `UPDATE api_keys SET revoked_at = NULL WHERE key_hash = '${hash}' AND platform_id = '${demo.platformId}';`,
  ].join(" ");
}

/** Labelled links for the banner: a fresh demo session as counselor and patient, or the bare pages. */
export async function demoLinks(baseUrl: string, demo: DemoPlatform): Promise<[string, string][]> {
  const page = (name: string, token?: string) =>
    `${baseUrl}/demo/${name}.html${token ? `#${new URLSearchParams({ token, api: baseUrl })}` : ""}`;
  try {
    const response = await fetch(`${baseUrl}/v1/platforms/${demo.platformId}/sessions`, {
      method: "POST",
      headers: { "X-API-Key": demo.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({
        meeting_id: "demo-meeting",
        counselor_id: "demo-counselor",
        patient_id: "demo-patient",
        expires_in_minutes: 1440,
      }),
    });
    if (response.status !== 201) throw new Error(`status ${response.status}`);
    const session = (await response.json()) as {
      session_id: string;
      counselor_token: string;
      patient_token: string;
    };
    return [
      ["Demo session", session.session_id],
      ["Counselor console", page("counselor", session.counselor_token)],
      ["Patient page", page("patient", session.patient_token)],
    ];
  } catch {
    return [
      ["Counselor demo", page("counselor")],
      ["Patient demo", page("patient")],
    ];
  }
}
