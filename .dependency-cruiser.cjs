// The layout rules of docs/architecture.md, checked on every import by `npm run lint:layout` (npm test).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "sdk-stands-alone",
      comment: "The SDKs ship with no runtime dependency: sdk/src imports only sdk/src.",
      severity: "error",
      from: { path: "^sdk/src/" },
      to: { pathNot: "^sdk/src/" },
    },
    {
      name: "lib-is-pure",
      comment:
        "lib/ is shared by the worker and the pipeline: it imports only lib/, the protocol and npm packages.",
      severity: "error",
      from: { path: "^lib/" },
      to: { pathNot: ["^lib/", "^sdk/src/protocol\\.ts$", "node_modules"] },
    },
    {
      name: "psap-is-the-index",
      comment:
        "src/psap reads the index and ranks: it imports only itself, lib/ and the protocol (the answer is assembled in src/answer).",
      severity: "error",
      from: { path: "^src/psap/" },
      to: { pathNot: ["^src/psap/", "^lib/", "^sdk/src/protocol\\.ts$", "node_modules"] },
    },
    {
      name: "pipeline-not-worker",
      comment: "The offline pipeline (data/) never imports the worker (src/): what both need is in lib/.",
      severity: "error",
      from: { path: "^data/" },
      to: { path: "^src/" },
    },
    {
      name: "worker-ships-alone",
      comment:
        "src/ ships in the worker: it never imports the pipeline, the bench, the tests or the scripts.",
      severity: "error",
      from: { path: "^(src|lib)/" },
      to: { path: "^(data|bench|test|scripts)/" },
    },
    {
      name: "index-through-the-answer",
      comment:
        "The worker's other parts ask src/answer for a fix's answer, not the index itself (its errors and cache reset aside).",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/psap/", "^src/answer/", "^src/http/routes/admin-psaps\\.ts$"] },
      to: { path: "^src/psap/", pathNot: "^src/psap/lookup\\.ts$" },
    },
    {
      name: "no-circular",
      comment: "No import cycle between modules.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.node.json" },
    exclude: { path: "^(node_modules|\\.wrangler|sdk/dist|sdk/lib|public/sdk)" },
  },
};
