// Prints a new Ed25519 signing key as JWT_SIGNING_KEY holds it (one line of JSON), and its public half on stderr.
// `npm run signing-key` (to look at or keep a key). To put a new one as the deployed secret: npm run deploy:secrets.
import { generateSigningJwk } from "../src/auth/signing-key-generation.ts";

const jwk = await generateSigningJwk();
const { d: _private, ...publicJwk } = jwk;
process.stdout.write(`${JSON.stringify(jwk)}\n`);
process.stderr.write(
  `public key (add it to JWT_PREVIOUS_PUBLIC_KEYS when you rotate away from this one):\n${JSON.stringify(publicJwk)}\n`,
);
