// The demo links `npm run dev` prints once the server is up: a fresh demo session, opened as the counselor
// and as the patient. Tokens travel in the URL fragment, which browsers never send to a server or log.

export interface DemoLinkContext {
  /** The server's base URL, without a trailing slash: `http://localhost:8787`. */
  baseUrl: string;
  platformId: string;
  apiKey: string;
}

export interface DemoLink {
  label: string;
  url: string;
}

interface DemoSession {
  session_id: string;
  patient_token: string;
  counselor_token: string;
}

/** Labelled links for the banner; without a session (the API refused), the bare pages. */
export async function demoLinks(context: DemoLinkContext): Promise<DemoLink[]> {
  const counselorPage = `${context.baseUrl}/demo/counselor.html`;
  const patientPage = `${context.baseUrl}/demo/patient.html`;
  const session = await createDemoSession(context);
  if (!session) {
    return [
      { label: "Counselor demo", url: counselorPage },
      { label: "Patient demo", url: patientPage },
    ];
  }
  const fragment = (token: string) => `#${new URLSearchParams({ token, api: context.baseUrl })}`;
  return [
    { label: "Demo session", url: session.session_id },
    { label: "Counselor console", url: `${counselorPage}${fragment(session.counselor_token)}` },
    { label: "Patient page", url: `${patientPage}${fragment(session.patient_token)}` },
  ];
}

async function createDemoSession(context: DemoLinkContext): Promise<DemoSession | null> {
  try {
    const response = await fetch(`${context.baseUrl}/v1/platforms/${context.platformId}/sessions`, {
      method: "POST",
      headers: { "X-API-Key": context.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({
        meeting_id: "demo-meeting",
        counselor_id: "demo-counselor",
        patient_id: "demo-patient",
        expires_in_minutes: 1440,
      }),
    });
    if (response.status !== 201) return null;
    return (await response.json()) as DemoSession;
  } catch {
    return null;
  }
}
