// An SDK error thrown in Node: prints its stack, for the test to find the package's line in it.
import { CounselorSDK } from "@sos-psap/sdk/counselor";

try {
  new CounselorSDK({});
} catch (err) {
  console.log(JSON.stringify({ name: err.name, code: err.code, stack: err.stack }));
}
