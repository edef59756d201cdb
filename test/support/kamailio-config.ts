// The Kamailio configuration of the LoST test: a SIP server on loopback whose only job is to answer an
// emergency INVITE with where its own `lost` module says the call goes. The route replies 302 with
// `Contact: "<displayName>" <uri>` (what lost_query returned) and always `X-Lost-Result: <its return code>`;
// on failure a 500 with `X-Lost-Error: <the LoST error's name>` (empty when there was none). An INVITE with
// `X-Dereference` has its location URI dereferenced by POST first (lost_held_dereference: `X-Held-Result`).

/** How Kamailio's http_client authenticates to the LoST server (its `authmethod`). */
export type HttpAuthMethod =
  /** 1: HTTP Basic sent with the first request (what an integrator should configure). */
  | "basic"
  /** 3, http_client's default (Basic or Digest): curl first asks without credentials and needs a 401 challenge. */
  | "basic-or-digest";

export interface LostConnection {
  /** The LoST endpoint, e.g. `http://127.0.0.1:8787/lost`. */
  url: string;
  /** HTTP Basic user: the platform id. */
  user: string;
  /** HTTP Basic password: the platform's API key. */
  password: string;
  authMethod?: HttpAuthMethod;
  /** How long Kamailio waits for the LoST server (whole seconds). */
  timeoutSeconds?: number;
}

export const LOST_CONNECTION_NAME = "lost";

/** kamailio.cfg: UDP on 127.0.0.1 only, one worker, no DNS, the route described above. */
export function kamailioConfig(sipPort: number, httpConnectionsFile: string): string {
  return `#!KAMAILIO
# Written by test/support/kamailio-config.ts for one test run.
debug=2
log_stderror=yes
children=1
disable_tcp=yes
auto_aliases=no
dns=no
rev_dns=no
dns_try_naptr=no
listen=udp:127.0.0.1:${sipPort}

loadmodule "tm.so"
loadmodule "sl.so"
loadmodule "pv.so"
loadmodule "xlog.so"
loadmodule "textops.so"
# http_client before lost (lost uses its connections).
loadmodule "http_client.so"
loadmodule "lost.so"

modparam("http_client", "config_file", "${quote(httpConnectionsFile)}")
# The lost module's README asks for whole HTTP bodies (matters for HELD; harmless for LoST).
modparam("http_client", "query_result", 0)
# Logs every element it read from a findServiceResponse: the run's output shows what Kamailio understood.
modparam("lost", "verbose", 1)

request_route {
  if (is_method("ACK")) {
    t_check_trans();
    exit;
  }
  if (is_method("OPTIONS")) {
    # The readiness probe.
    sl_send_reply("200", "OK");
    exit;
  }
  if (!is_method("INVITE")) {
    sl_send_reply("405", "Method Not Allowed");
    exit;
  }
  # Stateful: a retransmitted INVITE is absorbed, so one call is one LoST query.
  if (!t_newtran()) {
    sl_reply_error();
    exit;
  }
  t_reply("100", "Trying");
  # $var lives as long as the worker: lost_query leaves them untouched on failure, so clear them first.
  $var(uri) = "";
  $var(name) = "";
  $var(err) = "";
  $var(pidf) = "";
  if (is_present_hf("X-Dereference")) {
    # Location by reference, dereferenced by POST (RFC 6753): a HELD locationRequest to the Geolocation
    # header's http(s) URI, then LoST with the PIDF-LO that came back (the test asks for this chain).
    $var(url) = $(hdr(Geolocation){s.select,0,;});
    $var(held) = lost_held_dereference("$(var(url){s.unbracket})", "emergencyDispatch", "geodetic", "$var(pidf)", "$var(err)");
    xlog("L_INFO", "lost_held_dereference: result $var(held), error [$var(err)]\n");
    append_to_reply("X-Held-Result: $var(held)\r\n");
    if ($var(held) < 200 || $var(held) > 203) {
      append_to_reply("X-Lost-Error: $var(err)\r\n");
      t_reply("500", "Location Dereference Failed");
      exit;
    }
    $var(res) = lost_query("${LOST_CONNECTION_NAME}", "$var(pidf)", "", "$var(uri)", "$var(name)", "$var(err)");
  } else if (is_present_hf("Geolocation")) {
    # RFC 6442: the PIDF-LO is the body part the Geolocation header's cid: names, or what its http(s) URI
    # gives to a GET (location by reference, RFC 6753); the service URN is the Request-URI.
    $var(res) = lost_query("${LOST_CONNECTION_NAME}", "$var(uri)", "$var(name)", "$var(err)");
  } else {
    # The whole body is the PIDF-LO; the service URN is the Request-URI ("" means: take it from there).
    $var(res) = lost_query("${LOST_CONNECTION_NAME}", "$rb", "", "$var(uri)", "$var(name)", "$var(err)");
  }
  xlog("L_INFO", "lost_query for $ru: result $var(res), uri [$var(uri)], name [$var(name)], error [$var(err)]\\n");
  append_to_reply("X-Lost-Result: $var(res)\\r\\n");
  if ($var(res) == 200 && $var(uri) != "") {
    append_to_reply("Contact: \\"$(var(name){s.escape.common})\\" <$var(uri)>\\r\\n");
    t_reply("302", "Moved Temporarily");
    exit;
  }
  append_to_reply("X-Lost-Error: $var(err)\\r\\n");
  t_reply("500", "LoST Query Failed");
  exit;
}
`;
}

/** http_client's connection file: one connection, credentials as quoted values (any printable character). */
export function httpConnectionsConfig(lost: LostConnection): string {
  for (const [name, value] of Object.entries({ url: lost.url, user: lost.user, password: lost.password })) {
    // A line break would end the value and start a directive of its own.
    if (/[\r\n\0]/.test(value)) throw new Error(`the LoST ${name} must be one line`);
  }
  const authmethod = (lost.authMethod ?? "basic") === "basic" ? 1 : 3;
  return `[${LOST_CONNECTION_NAME}]
url = "${quote(lost.url)}"
username = "${quote(lost.user)}"
password = "${quote(lost.password)}"
authmethod = ${authmethod}
timeout = ${lost.timeoutSeconds ?? 15}
`;
}

/** A value inside a double-quoted Kamailio string. */
function quote(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
}
