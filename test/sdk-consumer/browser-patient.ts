// The patient's page as a platform bundles it (esbuild, for a browser): what the budget measures.
import { PatientSDK } from "@sos-psap/sdk/patient";

const patient = new PatientSDK({
  apiBaseUrl: location.origin,
  onPSAPResults: (psaps) => console.log(psaps),
  onError: (err) => console.warn(err.name, err.code),
});
void patient.init();
