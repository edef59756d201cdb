// The worker's bindings and secrets: generated from wrangler.toml by `npm run types` into
// worker-configuration.d.ts (checked by `npm run typecheck`), so `cloudflare:workers` `env` is typed too.
export type Env = Cloudflare.Env;
