// The shipped modules: minified the way build-sdk.ts does it, errors keep their names and codes.
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { bundleOptions } from "../../scripts/build-sdk.ts";

async function load(module: string): Promise<Record<string, unknown>> {
  const out = await build({ ...bundleOptions(module), write: false });
  const code = out.outputFiles[0]?.text ?? "";
  return import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
}

describe.each(["patient", "counselor"])("minified %s module", (module) => {
  it("exports the SDK class, RateLimitError and ApiError with literal names and codes", async () => {
    const m = await load(module);
    const RateLimitError = m.RateLimitError as new (retries: number) => Error & { code: string };
    const ApiError = m.ApiError as new (
      status: number,
      code: string,
      detail: string,
    ) => Error & { code: string };
    expect(typeof m[module === "patient" ? "PatientSDK" : "CounselorSDK"]).toBe("function");
    const rl = new RateLimitError(3);
    expect([rl.name, rl.code]).toEqual(["RateLimitError", "rate_limited"]);
    const api = new ApiError(410, "session_ended", "over");
    expect([api.name, api.code]).toEqual(["ApiError", "session_ended"]);
  });
});
