// freePort chooses below the system's ephemeral range, where servers binding port 0 (wrangler's
// own sockets) never land, so a port chosen for one server is not handed to another meanwhile.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort } from "../support/processes.ts";

function ephemeralLow(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  } catch {
    return 32_768;
  }
}

function listen(port: number): Promise<() => Promise<void>> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(() => new Promise((done) => server.close(() => done()))));
  });
}

describe("freePort", () => {
  it("gives a port below the ephemeral range that can be bound", async () => {
    const port = await freePort();
    expect(port).toBeLessThan(ephemeralLow());
    expect(port).toBeGreaterThanOrEqual(1_024);
    const close = await listen(port);
    await close();
  });

  it("never gives a port that is taken", async () => {
    const taken: number[] = [];
    const closers: (() => Promise<void>)[] = [];
    try {
      for (let i = 0; i < 30; i++) {
        const port = await freePort();
        expect(taken).not.toContain(port);
        closers.push(await listen(port));
        taken.push(port);
      }
    } finally {
      for (const close of closers) await close();
    }
  });
});
