// The demo links `npm run dev` prints once the server is up. The SDK's demo pages live in public/demo/.
// Extend `demoLinks` (for example with demo-session links that carry tokens in the URL fragment): it
// runs after the server accepts connections, so it may call the API with `context.apiKey`.

export interface DemoLinkContext {
  /** The server's base URL, without a trailing slash: `http://localhost:8787`. */
  baseUrl: string;
  platformId: string;
  apiKey: string;
}

/** Labelled links for the banner. */
export async function demoLinks(context: DemoLinkContext): Promise<{ label: string; url: string }[]> {
  return [
    { label: "Counselor demo", url: `${context.baseUrl}/demo/counselor.html` },
    { label: "Patient demo", url: `${context.baseUrl}/demo/patient.html` },
  ];
}
