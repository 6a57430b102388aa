import { hostOf, type Endpoint } from "./endpoint.js";
import { ModelError } from "./errors.js";

/**
 * Failures that come from the person's own settings and that no retry can cure: the same URL and
 * key fail the same way every time, so retrying only makes them wait (4 retries are ~15 s).
 * Each is recognised by fetch's or OpenSSL's own words for it (http-fetch.ts words Node's errors as
 * undici, Node's fetch, does), never by a guess.
 */

/** https:// to a server that answers in plain text: the first bytes back are not a TLS record. */
const notTlsCodes = new Set(["ERR_SSL_WRONG_VERSION_NUMBER", "ERR_SSL_PACKET_LENGTH_TOO_LONG", "ERR_SSL_HTTP_REQUEST"]);

/** The TLS handshake itself is refused: no protocol version or cipher both sides speak. */
const handshakeCodes = new Set(["ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION", "ERR_SSL_UNSUPPORTED_PROTOCOL", "ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE", "ERR_SSL_NO_PROTOCOLS_AVAILABLE"]);

/** OpenSSL's verdicts on a certificate (Node passes them on as the error's code), with what to do. */
const untrustedFix = "if the server uses a certificate of your own CA, point NODE_EXTRA_CA_CERTS at that CA's certificate file; otherwise check --base-url";
const certificateFixes: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: untrustedFix,
  SELF_SIGNED_CERT_IN_CHAIN: untrustedFix,
  UNABLE_TO_GET_ISSUER_CERT: untrustedFix,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: untrustedFix,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: untrustedFix,
  CERT_UNTRUSTED: untrustedFix,
  CERT_REJECTED: untrustedFix,
  INVALID_CA: untrustedFix,
  CERT_CHAIN_TOO_LONG: untrustedFix,
  PATH_LENGTH_EXCEEDED: untrustedFix,
  INVALID_PURPOSE: untrustedFix,
  CERT_SIGNATURE_FAILURE: untrustedFix,
  UNABLE_TO_DECRYPT_CERT_SIGNATURE: untrustedFix,
  UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: untrustedFix,
  CERT_REVOKED: "the server must get a new certificate; check --base-url",
  CERT_HAS_EXPIRED: "the server must renew its certificate (or this machine's clock is wrong)",
  CERT_NOT_YET_VALID: "check this machine's clock, or the server's certificate",
  ERROR_IN_CERT_NOT_BEFORE_FIELD: "the server's certificate is malformed; check --base-url",
  ERROR_IN_CERT_NOT_AFTER_FIELD: "the server's certificate is malformed; check --base-url",
  HOSTNAME_MISMATCH: "use the host name the certificate was issued for in --base-url",
  ERR_TLS_CERT_ALTNAME_INVALID: "use the host name the certificate was issued for in --base-url",
};

/** fetch's message when a header value cannot be sent (fetch-headers.ts's too): it quotes the value, which holds the key. */
const badHeaderValue = /invalid header value|Cannot convert argument to a ByteString/i;

/** The innermost error's message and code along the cause chain, where fetch and OpenSSL put them. */
export function innermost(error: unknown): { message: string; code: string | undefined } {
  let message = "";
  let code: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === "object"; depth++) {
    const { message: m, code: c } = current as { message?: unknown; code?: unknown };
    if (typeof m === "string") message = m;
    if (typeof c === "string") code = c;
    current = (current as { cause?: unknown }).cause;
  }
  return { message, code };
}

function portOf(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.port || (parsed.protocol === "https:" ? "443" : "80");
  } catch {
    return "?";
  }
}

/** OpenSSL's reason without its file:line noise, e.g. "self-signed certificate". */
function tlsReason(message: string, code: string): string {
  const reason = message.split("\n")[0]!.replace(/^.*?:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+):.*$/, "$1").replace(/[:\s]+$/, "");
  return reason === "" || reason.length > 160 ? code : `${reason}, ${code}`;
}

/**
 * The fault, when `error` is one the settings caused and a retry cannot cure; undefined otherwise.
 * `endpoint` names the URL and the key's variables in the message.
 */
export function settingsFault(error: unknown, endpoint: Endpoint | undefined): ModelError | undefined {
  const { message, code } = innermost(error);
  const url = endpoint?.url ?? "the provider's URL";
  const config = (text: string) => new ModelError("config", text, { cause: error });

  // The fetch standard's "bad ports" (1, 6000, 6665-6669, ...) are refused before any connection.
  if (message === "bad port") {
    const port = endpoint ? portOf(endpoint.url) : "?";
    return config(
      `Cannot use port ${port} of ${url}: Node's fetch refuses to connect to it (a "bad port", reserved for another protocol); run the server on another port, e.g. 8000, and pass that in --base-url.`,
    );
  }
  // The status line did not start with HTTP/: whatever listens on that port is not an HTTP server.
  if (code === "HPE_INVALID_CONSTANT" && /Expected HTTP\//.test(message)) {
    return config(`The server at ${url} does not answer in HTTP (${code}); check the host and port in --base-url.`);
  }
  if (code && notTlsCodes.has(code)) {
    const plain = endpoint?.url.replace(/^https:/i, "http:");
    const fix = plain && plain !== endpoint?.url ? `if it is a plain http server, pass ${plain} to --base-url` : "check --base-url";
    return config(`${url} does not answer in TLS, so https:// cannot work there (${code}); ${fix}.`);
  }
  if (code && handshakeCodes.has(code)) {
    const host = endpoint ? hostOf(endpoint.url) : "the server";
    return config(`The TLS handshake with ${host} failed (${tlsReason(message, code)}): it speaks no TLS version or cipher Node accepts; check --base-url.`);
  }
  const certificateFix = code ? certificateFixes[code] : undefined;
  if (code && certificateFix) {
    const host = endpoint ? hostOf(endpoint.url) : "the server";
    return config(`The TLS certificate of ${host} was refused (${tlsReason(message, code)}); ${certificateFix}.`);
  }
  // Never echo this message: it quotes the whole header, API key included.
  if (badHeaderValue.test(message)) {
    const key = endpoint ? `The API key in ${endpoint.keyEnv.join(" or ")}` : "The API key";
    return config(`${key} cannot be sent in an HTTP header (it has a line break or a character such as … that is not plain ASCII); copy the key again.`);
  }
  return undefined;
}
