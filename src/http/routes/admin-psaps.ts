// Admin API (operators): find and check any loaded PSAP, and keep its contact number (the registry has none).
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { base64url } from "jose";
import { ADMIN_LIMITS } from "../../../lib/config.ts";
import { isAroundTheClock, isStale } from "../../../lib/lines.ts";
import { checkContactPhone, phoneRegionOf } from "../../../lib/phone.ts";
import type { CatalogueRecord } from "../../../lib/psap-index/format.ts";
import { operatorLine, withContacts } from "../../contacts/overlay.ts";
import { allContacts, contactHistory, deleteContact, getContact, putContact } from "../../contacts/store.ts";
import { errorName } from "../../error-name.ts";
import { fieldProblem, ProblemError, problem } from "../../problem.ts";
import { findPsap, type LoadedCatalogue, listPsaps, loadCatalogue } from "../../psap/catalogue.ts";
import { PsapIndexUnavailableError } from "../../psap/lookup.ts";
import { requireAdmin } from "../auth.ts";
import { readJsonBody, readNoBody, utf8, validate } from "../body.ts";
import type { AppEnv } from "../context.ts";
import { type App, errors, json, needs, noBody, route, serve } from "../route.ts";
import {
  CataloguePsapDetail,
  ContactHistoryResponse,
  ContactRequest,
  ContactResponse,
  CoverageResponse,
  PsapListQuery,
  PsapListResponse,
} from "../schemas-psaps.ts";

/** Seconds an operator is asked to wait when the index cannot be read. */
const RETRY_AFTER_S = 5;

export function mountAdminPsapRoutes(app: App): void {
  // "coverage" before {psapId}, so that it is not read as an id.
  serve(app, listRoute, coverageRoute, readRoute, putContactRoute, deleteContactRoute, historyRoute);
}

const psapParams = z.object({
  psapId: z.string().openapi({ param: { name: "psapId", in: "path" }, example: "8927" }),
});

const listRoute = route(
  createRoute({
    method: "get",
    path: "/v1/admin/psaps",
    tags: ["Admin"],
    summary: "List the loaded PSAPs, filtered by state, county or a name fragment, a page at a time",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { query: PsapListQuery },
    responses: {
      200: { description: "A page, in id order", content: json(PsapListResponse) },
      ...errors(400, 401, 503),
    },
  }),
  async (c) => {
    const query = validate(PsapListQuery, c.req.query());
    if (!query.ok) throw new ProblemError(query.problem);
    const { cursor, limit, ...filter } = query.value;
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const catalogue = await catalogueOf(c);
    const page = await listPsaps(
      c.env.PSAP_INDEX,
      catalogue,
      filter,
      after,
      limit ?? ADMIN_LIMITS.defaultPageSize,
    );
    const withNumbers = await applyContacts(c.env.DB, page.psaps);
    return c.json({
      // A page lists PSAPs; what each answers for (places, counties, NENA polygons) is the detail route's.
      psaps: withNumbers.map(({ served_places: _p, served_counties: _c, nena: _n, ...record }) => record),
      next_cursor: page.more && page.last !== null ? encodeCursor(page.last) : null,
    });
  },
);

const coverageRoute = route(
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/coverage",
    tags: ["Admin"],
    summary: "How many PSAPs have a phone number, by state",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    responses: { 200: { description: "Coverage", content: json(CoverageResponse) }, ...errors(401, 503) },
  }),
  async (c) => {
    const catalogue = await catalogueOf(c);
    const now = new Date();
    const byState: Record<string, CoverageCounts> = {};
    for (const [state, v] of Object.entries(catalogue.index.by_state)) {
      byState[state] = {
        psaps: v.psaps,
        with_phone: v.with_phone,
        with_24x7: v.with_24x7,
        stale: Object.entries(v.oldest_check).reduce(
          (n, [day, count]) => n + (isStale({ checked_on: day }, now) ? count : 0),
          0,
        ),
      };
    }
    // An operator's line changes the counts of its PSAP: read the PSAP's stored lines to know how.
    for (const contact of await allContacts(c.env.DB)) {
      const record = await findPsap(c.env.PSAP_INDEX, catalogue, contact.psap_id);
      const s = record ? byState[record.state] : undefined;
      if (!record || !s) continue;
      const line = operatorLine(contact);
      if (record.lines.length === 0) s.with_phone++;
      if (isAroundTheClock(line) && !record.lines.some(isAroundTheClock)) s.with_24x7++;
    }
    const totals: CoverageCounts = { psaps: 0, with_phone: 0, with_24x7: 0, stale: 0 };
    for (const s of Object.values(byState)) {
      totals.psaps += s.psaps;
      totals.with_phone += s.with_phone;
      totals.with_24x7 += s.with_24x7;
      totals.stale += s.stale;
    }
    return c.json({ data_version: catalogue.manifest.data_version, ...totals, by_state: byState });
  },
);

interface CoverageCounts {
  psaps: number;
  with_phone: number;
  with_24x7: number;
  stale: number;
}

const readRoute = route(
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/{psapId}",
    tags: ["Admin"],
    summary: "One loaded PSAP with the places and counties it answers for",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: psapParams },
    responses: {
      200: { description: "The PSAP", content: json(CataloguePsapDetail) },
      ...errors(401, 404, 503),
    },
  }),
  async (c) => {
    const record = await psapOf(c);
    const [shown] = await applyContacts(c.env.DB, [record]);
    return c.json(shown);
  },
);

const putContactRoute = route(
  createRoute({
    method: "put",
    path: "/v1/admin/psaps/{psapId}/contact",
    tags: ["Admin"],
    summary: "Set a PSAP's phone number (lookups show it within 60 s, no re-import)",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: psapParams, body: { content: json(ContactRequest), required: true } },
    responses: {
      200: { description: "The number now on file", content: json(ContactResponse) },
      ...errors(400, 401, 404, 413, 415, 503),
    },
  }),
  async (c) => {
    const body = await readJsonBody(c.req.raw, ContactRequest);
    const record = await psapOf(c);
    if (!body.ok) throw new ProblemError(body.problem);
    const phone = checkContactPhone(body.value.phone, body.value.phone_kind, phoneRegionOf(record.state));
    if (!phone.ok) throw new ProblemError(fieldProblem("phone", phone.message));
    const contact = await putContact(c.env.DB, {
      psap_id: record.id,
      phone: phone.e164,
      phone_kind: body.value.phone_kind,
      source: body.value.source,
      note: body.value.note ?? null,
    });
    return c.json(contact);
  },
);

const deleteContactRoute = route(
  createRoute({
    method: "delete",
    path: "/v1/admin/psaps/{psapId}/contact",
    tags: ["Admin"],
    summary: "Remove a PSAP's number (the imported one, or none, shows again within 60 s)",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: psapParams, body: noBody },
    responses: { 204: { description: "Removed" }, ...errors(400, 401, 404, 413, 415, 503) },
  }),
  async (c) => {
    const body = await readNoBody(c.req.raw);
    const record = await psapOf(c);
    if (!body.ok) throw new ProblemError(body.problem);
    await deleteContact(c.env.DB, record.id);
    return c.body(null, 204);
  },
);

const historyRoute = route(
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/{psapId}/contact/history",
    tags: ["Admin"],
    summary: "Every change to a PSAP's number: when, old and new value, source and note",
    security: needs("AdminToken"),
    middleware: requireAdmin(),
    request: { params: psapParams },
    responses: {
      200: { description: "History, oldest first", content: json(ContactHistoryResponse) },
      ...errors(401, 404, 503),
    },
  }),
  async (c) => {
    const record = await psapOf(c);
    return c.json({ psap_id: record.id, history: await contactHistory(c.env.DB, record.id) });
  },
);

async function catalogueOf(c: Context<AppEnv>): Promise<LoadedCatalogue> {
  try {
    return await loadCatalogue(c.env.PSAP_INDEX);
  } catch (error) {
    throw indexProblem(error);
  }
}

/** The path's PSAP in the loaded index, or 404. */
async function psapOf(c: Context<AppEnv>): Promise<CatalogueRecord> {
  const id = c.req.param("psapId") ?? "";
  const catalogue = await catalogueOf(c);
  let record: CatalogueRecord | null;
  try {
    record = id.length > 0 && id.length <= 64 ? await findPsap(c.env.PSAP_INDEX, catalogue, id) : null;
  } catch (error) {
    throw indexProblem(error);
  }
  if (!record) throw new ProblemError(problem("not_found", "No PSAP with this id in the loaded index."));
  return record;
}

function indexProblem(error: unknown): ProblemError {
  if (error instanceof PsapIndexUnavailableError) {
    return new ProblemError(
      problem("psap_index_unavailable", "No PSAP data is loaded; import it first.", {
        retryAfter: RETRY_AFTER_S,
      }),
    );
  }
  console.error(`PSAP catalogue unreadable: ${errorName(error)}`);
  return new ProblemError(
    problem("psap_lookup_failed", "The PSAP data could not be read; retry shortly.", {
      retryAfter: RETRY_AFTER_S,
    }),
  );
}

/** The records as lookups show them: the operator's line among the stored ones (read fresh, not cached). */
async function applyContacts(db: D1Database, records: CatalogueRecord[]): Promise<CatalogueRecord[]> {
  if (records.length === 1 && records[0]) {
    const contact = await getContact(db, records[0].id);
    return contact ? withContacts(records, new Map([[contact.psap_id, operatorLine(contact)]])) : records;
  }
  const numbers = new Map((await allContacts(db)).map((k) => [k.psap_id, operatorLine(k)]));
  return withContacts(records, numbers);
}

/**
 * A cursor names the last PSAP of the page it ends, behind a tag: any base64url text decodes to some
 * text, and without the tag a mangled cursor would read as an id and answer an empty "last" page.
 */
const CURSOR_TAG = "psap:";

/** base64url of the UTF-8 text (jose's codec): an operator's PSAP id may be any text, not only Latin-1. */
function encodeCursor(lastId: string): string {
  return base64url.encode(CURSOR_TAG + lastId);
}

function decodeCursor(cursor: string): string {
  try {
    // Bytes that are not UTF-8 are no cursor of ours either.
    const text = utf8(base64url.decode(cursor)) ?? "";
    const id = text.startsWith(CURSOR_TAG) ? text.slice(CURSOR_TAG.length) : "";
    if (id.length > 0 && id.length <= 64) return id;
  } catch {
    // fall through
  }
  throw new ProblemError(fieldProblem("cursor", "is not a cursor this API returned"));
}
