// The demo links of `npm run dev`: a fresh demo session whose tokens ride in the URL fragment, never the query.
import { afterEach, describe, expect, it, vi } from "vitest";
import { demoLinks } from "../../scripts/dev-demo-links.ts";

const context = { baseUrl: "http://127.0.0.1:8787", platformId: "plt_demo", apiKey: "sk_live_demo" };

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("demo links", () => {
  it("open a new demo session as counselor and as patient, with the tokens in the fragment", async () => {
    const fetchMock = vi.fn(async () =>
      Response.json(
        { session_id: "sid-1", patient_token: "patient.jwt.sig", counselor_token: "counselor.jwt.sig" },
        { status: 201 },
      ),
    );
    vi.stubGlobal("fetch", fetchMock);
    const links = await demoLinks(context);
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("http://127.0.0.1:8787/v1/platforms/plt_demo/sessions");
    expect(new Headers(init.headers).get("X-API-Key")).toBe("sk_live_demo");
    const counselor = new URL(links.find((l) => l.label === "Counselor console")?.url ?? "");
    const patient = new URL(links.find((l) => l.label === "Patient page")?.url ?? "");
    expect(counselor.pathname).toBe("/demo/counselor.html");
    expect(counselor.search).toBe("");
    expect(new URLSearchParams(counselor.hash.slice(1)).get("token")).toBe("counselor.jwt.sig");
    expect(new URLSearchParams(patient.hash.slice(1)).get("token")).toBe("patient.jwt.sig");
    expect(new URLSearchParams(patient.hash.slice(1)).get("api")).toBe(context.baseUrl);
  });

  it("fall back to the bare pages when the session cannot be created", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => new Response("{}", { status: 401 })),
    );
    const links = await demoLinks(context);
    expect(links.map((l) => l.url)).toEqual([
      "http://127.0.0.1:8787/demo/counselor.html",
      "http://127.0.0.1:8787/demo/patient.html",
    ]);
  });
});
