// How `npm run dev -- <wrangler flags>` reads the flags it must know about (every flag still reaches wrangler).
import { describe, expect, it } from "vitest";
import { readDevFlags, serverUrl } from "../../scripts/dev.ts";
import { DevError } from "../../scripts/dev-run.ts";

describe("readDevFlags", () => {
  it("reads --port and --ip in both the spaced and the = form", () => {
    expect(readDevFlags(["--port", "9000", "--ip", "127.0.0.1"])).toMatchObject({
      port: 9000,
      ip: "127.0.0.1",
    });
    expect(readDevFlags(["--port=9001", "--ip=0.0.0.0"])).toMatchObject({ port: 9001, ip: "0.0.0.0" });
  });

  it("leaves the port unset, listens where wrangler does and speaks http when not told otherwise", () => {
    expect(readDevFlags(["--log-level", "debug"])).toEqual({
      port: undefined,
      ip: "localhost",
      protocol: "http",
      persistTo: undefined,
      shared: [],
    });
  });

  it("shares --persist-to, --config and --env (long or short) with the setup commands", () => {
    const flags = readDevFlags([
      "--persist-to",
      "/tmp/state",
      "-e",
      "staging",
      "--config=alt.toml",
      "--port",
      "1",
    ]);
    expect(flags.shared).toEqual(["--persist-to", "/tmp/state", "--config", "alt.toml", "--env", "staging"]);
    expect(flags.persistTo).toBe("/tmp/state");
  });

  it("reads --local-protocol https", () => {
    expect(readDevFlags(["--local-protocol", "https"]).protocol).toBe("https");
  });

  it("explains a bad port, a bad protocol or a flag without its value", () => {
    expect(() => readDevFlags(["--port", "eighty"])).toThrow(DevError);
    expect(() => readDevFlags(["--port", "70000"])).toThrow(/port number/);
    expect(() => readDevFlags(["--port", "--ip", "x"])).toThrow(/port number/);
    expect(() => readDevFlags(["--ip"])).toThrow(/--ip needs a value/);
    expect(() => readDevFlags(["--local-protocol", "ftp"])).toThrow(/http/);
  });

  it("ignores what comes after a bare --", () => {
    expect(readDevFlags(["--", "--port", "x"]).port).toBeUndefined();
  });
});

describe("serverUrl", () => {
  it("follows --ip and --local-protocol", () => {
    expect(serverUrl({ ip: "127.0.0.1", protocol: "https" }, 9000)).toBe("https://127.0.0.1:9000");
    expect(serverUrl({ ip: "localhost", protocol: "http" }, 8787)).toBe("http://localhost:8787");
  });

  it("prints localhost for a wildcard address and brackets an IPv6 address", () => {
    expect(serverUrl({ ip: "0.0.0.0", protocol: "http" }, 1)).toBe("http://localhost:1");
    expect(serverUrl({ ip: "*", protocol: "http" }, 1)).toBe("http://localhost:1");
    expect(serverUrl({ ip: "::1", protocol: "http" }, 1)).toBe("http://[::1]:1");
  });
});
