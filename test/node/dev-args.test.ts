// How `npm run dev -- <wrangler flags>` reads the flags it must know about and passes every flag on.
import { describe, expect, it } from "vitest";
import { DevArgsError, readDevFlags, serverUrl, wranglerDevArgs } from "../../scripts/dev-args.ts";

describe("readDevFlags", () => {
  it("reads --port and --ip in both the spaced and the = form", () => {
    expect(readDevFlags(["--port", "9000", "--ip", "127.0.0.1"])).toMatchObject({
      port: 9000,
      ip: "127.0.0.1",
    });
    expect(readDevFlags(["--port=9001", "--ip=0.0.0.0"])).toMatchObject({ port: 9001, ip: "0.0.0.0" });
  });

  it("leaves port and ip unset when not given, with http as the protocol", () => {
    expect(readDevFlags(["--log-level", "debug"])).toEqual({ protocol: "http", sharedFlags: [] });
  });

  it("shares --persist-to, --env and --config with the setup commands", () => {
    const flags = readDevFlags([
      "--persist-to",
      "/tmp/state",
      "-e",
      "staging",
      "--config=alt.toml",
      "--port",
      "1",
    ]);
    expect(flags.sharedFlags).toEqual([
      "--persist-to",
      "/tmp/state",
      "-e",
      "staging",
      "--config",
      "alt.toml",
    ]);
    expect(flags.persistTo).toBe("/tmp/state");
  });

  it("reads --local-protocol https", () => {
    expect(readDevFlags(["--local-protocol", "https"]).protocol).toBe("https");
  });

  it("explains a bad port or a flag without its value", () => {
    expect(() => readDevFlags(["--port", "eighty"])).toThrow(DevArgsError);
    expect(() => readDevFlags(["--port", "70000"])).toThrow(/port number/);
    expect(() => readDevFlags(["--ip"])).toThrow(/needs a value/);
    expect(() => readDevFlags(["--port", "--ip", "x"])).toThrow(/needs a value/);
  });
});

describe("serverUrl", () => {
  it("prints what wrangler uses by default: localhost", () => {
    expect(serverUrl({ protocol: "http" }, 8787)).toBe(
      process.platform === "win32" ? "http://127.0.0.1:8787" : "http://localhost:8787",
    );
  });

  it("follows --ip and --local-protocol", () => {
    expect(serverUrl({ ip: "127.0.0.1", protocol: "https" }, 9000)).toBe("https://127.0.0.1:9000");
  });

  it("prints localhost for a wildcard address and brackets an IPv6 address", () => {
    expect(serverUrl({ ip: "0.0.0.0", protocol: "http" }, 1)).toBe("http://localhost:1");
    expect(serverUrl({ ip: "*", protocol: "http" }, 1)).toBe("http://localhost:1");
    expect(serverUrl({ ip: "::1", protocol: "http" }, 1)).toBe("http://[::1]:1");
  });
});

describe("wranglerDevArgs", () => {
  it("passes the user's flags through untouched", () => {
    const user = ["--port", "9000", "--ip", "127.0.0.1", "--log-level", "debug"];
    expect(wranglerDevArgs(user, readDevFlags(user), 9000)).toEqual(["dev", ...user]);
  });

  it("pins the port it chose when the user gave none, so the printed URL is right", () => {
    expect(wranglerDevArgs(["--ip", "127.0.0.1"], {}, 8788)).toEqual([
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      "8788",
    ]);
  });
});
