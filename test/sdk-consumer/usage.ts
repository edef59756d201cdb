// A platform's code against the package's typings: type-checked under moduleResolution bundler and node16.
import {
  type CounselorLocationCheck,
  type CounselorPsapResults,
  CounselorSDK,
} from "@sos-psap/sdk/counselor";
import { ApiError, GeolocationError, PatientSDK, type PatientSDKOptions } from "@sos-psap/sdk/patient";
import { PROBLEM_CODES, type ProblemCode, type PsapRecord, type ServerMessage } from "@sos-psap/sdk/protocol";

const patientOptions: PatientSDKOptions = {
  token: "patient-token",
  apiBaseUrl: "https://sos.example.com",
  onPSAPResults: (psaps: PsapRecord[]) =>
    console.log(psaps.map((p) => `${p.name}: ${p.phone ?? "no number"}`)),
  onEmergencyNumbers: (emergency) => console.log(emergency.numbers[0]?.number),
  onError: (err) => {
    if (err instanceof GeolocationError)
      console.log(err.code satisfies "permission_denied" | "position_unavailable" | "timeout");
    if (err instanceof ApiError) console.log(err.status, err.code, err.detail);
  },
};
export const patient = new PatientSDK(patientOptions);

// @ts-expect-error: a misspelt callback is refused, so the typings are real (an `any` would accept it).
export const misspelt = new PatientSDK({ apiBaseUrl: "https://sos.example.com", onPsapResults: () => {} });

export async function startVisit(apiKey: string): Promise<string> {
  const platform = new CounselorSDK({
    apiBaseUrl: "https://sos.example.com",
    platformId: "plt_1",
    secretKey: apiKey,
  });
  const session = await platform.startSession({
    meetingId: "visit-1",
    counselorId: "c-1",
    patientId: "p-1",
    locationCheck: "at_start",
  });
  return session.counselor_token;
}

export function counselorConsole(token: string): CounselorSDK {
  return new CounselorSDK({
    sessionToken: token,
    apiBaseUrl: "https://sos.example.com",
    onPSAPResults: (results: CounselorPsapResults) =>
      console.log(results.psaps[0]?.name, results.area.county),
    onLocationCheck: (check: CounselorLocationCheck) => console.log(check.checked_at, check.outcome),
    onLocationUnavailable: (reason, address) => console.log(reason, address),
  });
}

export function describeMessage(message: ServerMessage): string {
  switch (message.type) {
    case "psap_results":
      return `${message.psaps.length} PSAPs`;
    case "session_ended":
      return message.reason;
    default:
      return message.type;
  }
}

export const firstProblem: ProblemCode | undefined = PROBLEM_CODES[0];
