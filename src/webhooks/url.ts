// Which webhook URLs are accepted, decided by the class of the address the runtime's fetch would reach:
// https to a public unicast address or a public DNS name; plain http (and https) to this machine only in
// local development. Checked when the URL is set and again before every delivery (a stored URL may
// predate the rule). Address classes come from ipaddr.js (its IANA special-purpose registries), not from
// tables of our own.
import ipaddr from "ipaddr.js";
import { WEBHOOK_LIMITS } from "../../lib/config.ts";

export type UrlCheck = { ok: true; url: string } | { ok: false; message: string };

/** What a destination host is, after the normalisation fetch applies. */
type HostClass = "public" | "loopback" | "local";

/**
 * Names that resolve on the local machine or network by convention, never to a public receiver:
 * localhost (RFC 6761), mDNS .local (RFC 6762), .home.arpa (RFC 8375), .internal (reserved for private use).
 * `localhost` and its subdomains are loopback; the others are local networks.
 */
const LOOPBACK_NAMES = /^(?:.+\.)?localhost$/;
const LOCAL_NAMES = /(?:^|\.)(?:local|internal|home\.arpa)$/;

/** IPv6 global unicast (RFC 4291): anything outside 2000::/3 is special or unallocated. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR("2000::/3");
/** ::/96, the deprecated IPv4-compatible form (::127.0.0.1): its last 32 bits are an IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

/**
 * Classifies the host of a URL the WHATWG parser already normalised (as `fetch` parses it): IPv4 in
 * decimal, octal, hex or short form is dotted-decimal by then, IPv6 is bracketed and compressed. What is
 * left here: a trailing dot, IPv4-mapped and -compatible IPv6, and names that are local by convention.
 * A DNS name that resolves to a private address cannot be told here (a Worker has no resolver to ask):
 * such a name passes (README, "Webhooks").
 */
export function classifyHost(hostname: string): HostClass {
  const bracketed = hostname.startsWith("[") && hostname.endsWith("]");
  if (bracketed) return classifyIpv6(hostname.slice(1, -1));
  // "localhost." and "10.0.0.1." are the same hosts as without the dot (an absolute DNS name).
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return classifyIpv4(ipaddr.IPv4.parse(host));
  if (host === "" || host.split(".").some((label) => label === "")) return "local";
  if (LOOPBACK_NAMES.test(host)) return "loopback";
  if (LOCAL_NAMES.test(host)) return "local";
  return "public";
}

function classifyIpv4(address: ipaddr.IPv4): HostClass {
  const range = address.range();
  if (range === "unicast") return "public";
  return range === "loopback" ? "loopback" : "local";
}

function classifyIpv6(text: string): HostClass {
  if (!ipaddr.IPv6.isValid(text)) return "local";
  const address = ipaddr.IPv6.parse(text);
  // ::ffff:a.b.c.d reaches a.b.c.d; so did ::a.b.c.d (deprecated): classify the IPv4 address inside.
  if (address.isIPv4MappedAddress()) return classifyIpv4(address.toIPv4Address());
  const range = address.range();
  if (range === "loopback") return "loopback";
  if (range === "unspecified") return "local";
  if (address.match(IPV4_COMPATIBLE)) {
    const bytes = address.toByteArray().slice(12);
    return classifyIpv4(new ipaddr.IPv4(bytes));
  }
  return range === "unicast" && address.match(GLOBAL_UNICAST_V6) ? "public" : "local";
}

/**
 * Checks a webhook URL. `allowLoopback` is set by local development only (WEBHOOK_ALLOW_LOOPBACK_HTTP):
 * a receiver on this machine (http or https) can be tried there. Private, shared, link-local,
 * unique-local, multicast, unspecified, documentation and benchmark addresses are refused everywhere.
 */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): UrlCheck {
  if (raw.length > WEBHOOK_LIMITS.maxUrlLength) {
    return { ok: false, message: `must be at most ${WEBHOOK_LIMITS.maxUrlLength} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: "must be an absolute https URL" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    return { ok: false, message: "must be an absolute https URL" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, message: "must not carry a user name or password" };
  }
  if (url.hash !== "") return { ok: false, message: "must not have a #fragment" };
  const host = classifyHost(url.hostname);
  if (host === "loopback" && allowLoopback) return { ok: true, url: url.href };
  if (host !== "public") {
    return {
      ok: false,
      message:
        host === "loopback"
          ? "must be a public host, not loopback"
          : "must be a public host (not a private, link-local, shared, multicast, reserved or unspecified address)",
    };
  }
  if (url.protocol === "http:") {
    return {
      ok: false,
      message: allowLoopback
        ? "must use https (http only to a loopback host such as 127.0.0.1 in local development)"
        : "must use https",
    };
  }
  return { ok: true, url: url.href };
}
