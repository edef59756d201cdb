// Zod schemas of the PSAP record, the fix's area and emergency numbers, and the admin PSAP and contact routes.
// Every enum is a list of the protocol's; every response is checked against the type it is built from.
import { z } from "@hono/zod-openapi";
import { ADMIN_LIMITS, CONTACT_LIMITS } from "../../lib/config.ts";
import type { CatalogueRecord } from "../../lib/psap-index/format.ts";
import {
  CONTACT_ACTIONS,
  EMERGENCY_SERVICES,
  type EmergencyNumbers as EmergencyNumbersBody,
  LINE_ORIGINS,
  LOCATION_PRECISIONS,
  PHONE_KINDS,
  PLACE_KINDS,
  PSAP_JURISDICTIONS,
  PSAP_MATCHES,
  PSAP_TYPES,
  type PsapArea as PsapAreaBody,
  type PsapRecord,
} from "../../sdk/src/protocol.ts";
import type { Contact, ContactChange } from "../contacts/store.ts";
import { isoTimestamp, queryInteger } from "./schema-parts.ts";

const phoneKind = z.enum(PHONE_KINDS).openapi({
  description:
    "`emergency`: a 10-digit number published as an alternative to 911 that rings the 911 floor; `dispatch`: answered by the centre's dispatchers around the clock; `administrative`: any other line (business, records), which may go unanswered at night",
});

const PsapLineSchema = z
  .object({
    phone: z.string().openapi({ description: "E.164", example: "+17085551234" }),
    kind: phoneKind,
    label: z.string().openapi({
      description: "What the source says the line is for",
      example: "Non-emergency, answered by dispatch 24/7",
    }),
    source: z.string().openapi({ description: "Where it is published (URL or document title)" }),
    checked_on: z
      .string()
      .openapi({ description: "The day a person last read it there", example: "2026-11-28" }),
    origin: z.enum(LINE_ORIGINS).openapi({
      description:
        "`directory`: the open directory shipped with the service; `operator`: this deployment's operator",
    }),
  })
  .openapi("PsapLine");

const psapFields = {
  id: z.string().openapi({ example: "8927", description: "FCC PSAP ID where known" }),
  name: z.string().openapi({ example: "Southland Dispatch Center" }),
  type: z.enum(PSAP_TYPES),
  state: z.string().openapi({ example: "IL" }),
  county: z.string().nullable(),
  city: z.string().nullable(),
  phone: z.string().nullable().openapi({
    description:
      "E.164 of the best line (emergency, else dispatch, else administrative); null when none is on file",
    example: "+17085551234",
  }),
  phone_kind: phoneKind.nullable(),
  lines: z.array(PsapLineSchema).openapi({ description: "Every line on file, best first, at most 4" }),
  jurisdiction: z.enum(PSAP_JURISDICTIONS),
  handled_by: z
    .string()
    .nullable()
    .openapi({ description: "A secondary's primary (FCC id), from the registry" }),
  latitude: z.number(),
  longitude: z.number(),
  location_precision: z.enum(LOCATION_PRECISIONS),
};

export const PsapRecordSchema = z
  .object({
    ...psapFields,
    distance_km: z.number().openapi({ description: "Haversine, mean Earth radius 6371.0088 km, 1 decimal" }),
    match: z.enum(PSAP_MATCHES).openapi({ description: "Why it was chosen" }),
  })
  .openapi("Psap") satisfies z.ZodType<PsapRecord>;

export const PsapArea = z
  .object({
    country: z
      .string()
      .nullable()
      .openapi({ example: "US", description: "ISO 3166-1 alpha-2 (US territories are US)" }),
    state: z.string().nullable().openapi({ example: "IL" }),
    county: z.string().nullable().openapi({ example: "Cook" }),
    place: z.string().nullable().openapi({ example: "Evanston" }),
    place_kind: z.enum(PLACE_KINDS).nullable(),
  })
  .openapi("PsapArea") satisfies z.ZodType<PsapAreaBody>;

export const EmergencyNumbers = z
  .object({
    country: z.string().nullable(),
    numbers: z.array(
      z.object({
        number: z.string().openapi({ example: "911" }),
        service: z.enum(EMERGENCY_SERVICES),
      }),
    ),
  })
  .openapi("EmergencyNumbers") satisfies z.ZodType<EmergencyNumbersBody>;

export const CataloguePsap = z.object(psapFields).openapi("CataloguePsap");

export const CataloguePsapDetail = z
  .object({
    ...psapFields,
    served_places: z.array(z.string()).openapi({ description: "Census GEOIDs of the places it answers for" }),
    served_counties: z
      .array(z.string())
      .openapi({ description: "FIPS codes of the counties it answers for" }),
    nena: z
      .object({
        service_areas: z.array(
          z.object({
            nguid: z.string().openapi({ description: "NGUID (v2: ES_NGUID) of the polygon" }),
            display_name: z.string().openapi({ description: "DsplayName" }),
            agency_id: z.string().nullable().openapi({ description: "Agency_ID" }),
            service_uri: z.string().nullable().openapi({ description: "ServiceURI" }),
            avcard_uri: z.string().nullable().openapi({ description: "AVcard_URI" }),
            service_number: z.string().nullable().openapi({ description: "ServiceNum" }),
            matched_by: z.enum(["id", "name", "own"]).openapi({
              description:
                "How the import tied the polygon to this PSAP: an id column, its name in its state, or a PSAP of its own",
            }),
          }),
        ),
      })
      .optional()
      .openapi({ description: "Only for a PSAP with polygons from a NENA PsapPolygon layer" }),
  })
  .openapi("CataloguePsapDetail") satisfies z.ZodType<CatalogueRecord>;

export const PsapListQuery = z.strictObject({
  state: z
    .string()
    .regex(/^[A-Za-z]{2}$/, "must be a two-letter state or territory code")
    .optional(),
  county: z.string().min(1).max(100).optional().openapi({ description: "County name or 5-digit FIPS" }),
  q: z.string().min(1).max(100).optional().openapi({ description: "A fragment of the name, any case" }),
  cursor: z.string().min(1).max(200).optional(),
  limit: queryInteger("limit", 1, ADMIN_LIMITS.maxPageSize)
    .optional()
    .openapi({ description: `Default ${ADMIN_LIMITS.defaultPageSize}` }),
});

export const PsapListResponse = z
  .object({ psaps: z.array(CataloguePsap), next_cursor: z.string().nullable() })
  .openapi("PsapList");

export const ContactRequest = z
  .strictObject({
    phone: z.string().openapi({
      example: "(708) 555-1234",
      description:
        "E.164, or a national number of the PSAP's country or territory as libphonenumber-js reads it (digits, spaces, ( ) . -); stored and returned as E.164",
    }),
    phone_kind: phoneKind,
    source: z
      .string()
      .min(1)
      .max(CONTACT_LIMITS.maxSourceLength)
      .openapi({ example: "Call to the centre, 2026-11-20" }),
    note: z.string().max(CONTACT_LIMITS.maxNoteLength).optional(),
  })
  .openapi("ContactRequest");

export const ContactResponse = z
  .object({
    psap_id: z.string(),
    phone: z.string(),
    phone_kind: phoneKind,
    source: z.string(),
    note: z.string().nullable(),
    updated_at: isoTimestamp,
  })
  .openapi("Contact") satisfies z.ZodType<Contact>;

const contactValue = z.object({ phone: z.string(), phone_kind: phoneKind }).nullable();

export const ContactHistoryResponse = z
  .object({
    psap_id: z.string(),
    history: z.array(
      z.object({
        at: isoTimestamp,
        action: z.enum(CONTACT_ACTIONS),
        old: contactValue,
        new: contactValue,
        source: z.string().nullable(),
        note: z.string().nullable(),
      }) satisfies z.ZodType<ContactChange>,
    ),
  })
  .openapi("ContactHistory");

const coverageCounts = {
  psaps: z.number().int(),
  with_phone: z.number().int().openapi({ description: "PSAPs with any line" }),
  with_24x7: z.number().int().openapi({ description: "PSAPs with an emergency or dispatch line" }),
  stale: z.number().int().openapi({ description: "PSAPs with a line not checked in the last 365 days" }),
};

export const CoverageResponse = z
  .object({
    data_version: z.string(),
    ...coverageCounts,
    by_state: z.record(z.string(), z.object(coverageCounts)),
  })
  .openapi("PhoneCoverage");
