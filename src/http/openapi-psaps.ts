// The OpenAPI description of the admin PSAP and contact routes (registered with the others in openapi.ts).
import { createRoute, z } from "@hono/zod-openapi";
import { admin, errors, json, noBody } from "./openapi-parts.ts";
import * as s from "./schemas-psaps.ts";

const psapParams = z.object({
  psapId: z.string().openapi({ param: { name: "psapId", in: "path" }, example: "8927" }),
});

export const PSAP_ROUTES = [
  createRoute({
    method: "get",
    path: "/v1/admin/psaps",
    tags: ["Admin"],
    summary: "List the loaded PSAPs, filtered by state, county or a name fragment, a page at a time",
    security: admin,
    request: { query: s.PsapListQuery },
    responses: {
      200: { description: "A page, in id order", content: json(s.PsapListResponse) },
      ...errors(400, 401, 503),
    },
  }),
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/coverage",
    tags: ["Admin"],
    summary: "How many PSAPs have a phone number, by state",
    security: admin,
    responses: { 200: { description: "Coverage", content: json(s.CoverageResponse) }, ...errors(401, 503) },
  }),
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/{psapId}",
    tags: ["Admin"],
    summary: "One loaded PSAP with the places and counties it answers for",
    security: admin,
    request: { params: psapParams },
    responses: {
      200: { description: "The PSAP", content: json(s.CataloguePsapDetail) },
      ...errors(401, 404, 503),
    },
  }),
  createRoute({
    method: "put",
    path: "/v1/admin/psaps/{psapId}/contact",
    tags: ["Admin"],
    summary: "Set a PSAP's phone number (lookups show it within 60 s, no re-import)",
    security: admin,
    request: { params: psapParams, body: { content: json(s.ContactRequest), required: true } },
    responses: {
      200: { description: "The number now on file", content: json(s.ContactResponse) },
      ...errors(400, 401, 404, 413, 415, 503),
    },
  }),
  createRoute({
    method: "delete",
    path: "/v1/admin/psaps/{psapId}/contact",
    tags: ["Admin"],
    summary: "Remove a PSAP's number (the imported one, or none, shows again within 60 s)",
    security: admin,
    request: { params: psapParams, body: noBody },
    responses: { 204: { description: "Removed" }, ...errors(400, 401, 404, 413, 415, 503) },
  }),
  createRoute({
    method: "get",
    path: "/v1/admin/psaps/{psapId}/contact/history",
    tags: ["Admin"],
    summary: "Every change to a PSAP's number: when, old and new value, source and note",
    security: admin,
    request: { params: psapParams },
    responses: {
      200: { description: "History, oldest first", content: json(s.ContactHistoryResponse) },
      ...errors(401, 404, 503),
    },
  }),
];
