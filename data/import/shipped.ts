// The operator files the project ships (data/overrides/): facts the registry cannot tell, each row with its
// reason or source. The import CLI adds them to every import of real data (`--no-shipped-overrides` leaves
// them out, and the accuracy bench measures both ways).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export const SHIPPED_OPERATOR_FILES: readonly string[] = [
  resolve(ROOT, "data/overrides/psap-overrides.csv"),
  resolve(ROOT, "data/overrides/member-towns.csv"),
];
