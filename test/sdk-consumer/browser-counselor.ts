// The counselor's console as a platform bundles it (esbuild, for a browser): what the budget measures.
import { CounselorSDK } from "@sos-psap/sdk/counselor";

const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
const counselor = new CounselorSDK({
  sessionToken: token,
  apiBaseUrl: location.origin,
  onPSAPResults: (results) => console.log(results.psaps),
  onSessionState: (state) => console.log(state),
});
void counselor.connect().then(() => counselor.trigger());
