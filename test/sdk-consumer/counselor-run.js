// A platform's server on Node 22: starts a session with its API key, opens the counselor's socket, sends
// an SOS, ends the session, and exits. Prints one JSON line per step. Usage: node counselor-run.js BASE PLATFORM KEY
import { CounselorSDK } from "@sos-psap/sdk/counselor";

const [apiBaseUrl, platformId, secretKey] = process.argv.slice(2);
const say = (step) => console.log(JSON.stringify(step));

const platform = new CounselorSDK({ apiBaseUrl, platformId, secretKey });
const session = await platform.startSession({
  meetingId: "m-package",
  counselorId: "c-package",
  patientId: "p-package",
});
say({ step: "started", session_id: session.session_id, state: session.state });

const counselor = new CounselorSDK({
  sessionToken: session.counselor_token,
  apiBaseUrl,
  onSessionState: (state) => {
    say({ step: "state", state });
    // The SOS reached the socket: the platform ends the visit, and the socket hears that too.
    if (state === "sos")
      platform
        .endSession({ sessionId: session.session_id })
        .catch((err) => say({ step: "error", code: err.code }));
    if (state === "ended") counselor.disconnect();
  },
  onError: (err) => say({ step: "error", code: err.code }),
});
await counselor.connect();
say({ step: "connected" });
const sos = await counselor.trigger();
say({ step: "triggered", state: sos.state });
