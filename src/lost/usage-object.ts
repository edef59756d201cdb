// One Durable Object per platform counting its LoST queries by UTC day: nothing of a query is kept but
// that it was made (never its location), and nothing on the query's own path waits for the count.
import { DurableObject } from "cloudflare:workers";
import { LOST_LIMITS } from "../../lib/config.ts";
import type { Env } from "../env.ts";

export interface LostUsageDay {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  queries: number;
}

export class LostUsageObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      this.ctx.storage.sql.exec(
        "CREATE TABLE IF NOT EXISTS queries (day TEXT PRIMARY KEY, count INTEGER NOT NULL)",
      );
    });
  }

  /** Counts one query on `day`, and forgets the days older than LOST_LIMITS.usageDays. */
  count(day: string): void {
    const sql = this.ctx.storage.sql;
    sql.exec(
      "INSERT INTO queries (day, count) VALUES (?, 1) ON CONFLICT(day) DO UPDATE SET count = count + 1",
      day,
    );
    const oldest = new Date(Date.parse(`${day}T00:00:00Z`) - LOST_LIMITS.usageDays * 86_400_000);
    sql.exec("DELETE FROM queries WHERE day < ?", oldest.toISOString().slice(0, 10));
  }

  /** The days counted, newest first. */
  read(): LostUsageDay[] {
    return this.ctx.storage.sql
      .exec<{ day: string; count: number }>("SELECT day, count FROM queries ORDER BY day DESC")
      .toArray()
      .map((row) => ({ date: row.day, queries: row.count }));
  }
}

/** The usage object of a platform. */
export function lostUsage(env: Env, platformId: string): DurableObjectStub<LostUsageObject> {
  return env.LOST_USAGE.get(env.LOST_USAGE.idFromName(platformId));
}
