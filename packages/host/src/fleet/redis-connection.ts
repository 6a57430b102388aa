import { Redis } from "ioredis";
import { UsageError } from "../usage-error.js";

export const defaultRedisUrl = "redis://127.0.0.1:6379";

/** Set to 1 to use a Redis on another machine that takes no password (a network that is private by itself). */
export const allowOpenRedisVariable = "CAIRN_FLEET_ALLOW_OPEN_REDIS";

/**
 * The Redis URL the fleet connects to, checked: whoever can write to the queue can ask every worker
 * for work, so a Redis on another machine must want a password (or the person says the network
 * itself is closed). One line, a UsageError, before anything connects.
 */
export function redisUrl(env: Record<string, string | undefined>): string {
  const url = givenRedisUrl(env);
  const shown = shownRedisUrl(url);
  if (url.startsWith("/")) return url; // a Unix socket: this machine, its file permissions decide
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`CAIRN_REDIS_URL (${shown}) is not a URL; write it as redis://[:password@]host:port, or rediss:// for TLS.`);
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new UsageError(`CAIRN_REDIS_URL (${shown}) must start with redis:// or rediss:// (TLS), or be the path of a Unix socket.`);
  }
  // An empty one (?password= , redis://:@host) sends none: the Redis is as open as without it.
  const hasPassword = parsed.password !== "" || (parsed.searchParams.get("password") ?? "") !== "";
  if (!hasPassword && !isLoopback(parsed.hostname) && env[allowOpenRedisVariable] !== "1") {
    throw new UsageError(
      `Redis at ${shown} is on another machine and CAIRN_REDIS_URL has no password, so anyone who reaches it could queue work for your workers; put the password in the URL (redis://:password@host:port, rediss:// for TLS), or set ${allowOpenRedisVariable}=1 if that network is closed to everyone else.`,
    );
  }
  return url;
}

/** CAIRN_REDIS_URL as set (or the default), unchecked: only for showing it, through shownRedisUrl. */
export function givenRedisUrl(env: Record<string, string | undefined>): string {
  return env.CAIRN_REDIS_URL?.trim() || defaultRedisUrl;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The Redis URL as it may be printed or sent to a page: user name, password and query replaced by ***. */
export function shownRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username !== "") parsed.username = "***";
    if (parsed.password !== "") parsed.password = "***";
    // ioredis takes options from the query too (?password=…); none of them is worth the risk.
    if (parsed.search !== "") parsed.search = "?***";
    return parsed.toString();
  } catch {
    // Not a URL: show only what cannot be a secret.
    return url.replace(/\/\/[^@/]*@/, "//***@").replace(/\?.*$/, "?***");
  }
}

/**
 * `text` (an error message, a line for a page) with the password of `url` replaced by ***, wherever
 * it appears: a library's message may quote what it was given, and a password is never shown.
 */
export function withoutPassword(text: string, url: string): string {
  const secrets = new Set<string>();
  try {
    const parsed = new URL(url);
    for (const raw of [parsed.password, parsed.searchParams.get("password") ?? ""]) {
      if (raw === "") continue;
      secrets.add(raw);
      try {
        secrets.add(decodeURIComponent(raw));
      } catch {
        // not percent-encoded after all
      }
    }
  } catch {
    const raw = /\/\/(?:[^:@/]*):([^@/]*)@/.exec(url)?.[1];
    if (raw) secrets.add(raw);
  }
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join("***");
  return out;
}

/**
 * A connection for a short command (add, status, cancel…): it fails fast with one line when Redis
 * cannot be reached, instead of ioredis' default of retrying forever in silence.
 */
export async function connectOnce(url: string): Promise<Redis> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 3000, retryStrategy: () => null });
  let cause: unknown;
  redis.on("error", (error) => (cause ??= error)); // the socket's own error says more than connect()'s "Connection is closed"
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw unreachable(url, cause ?? error);
  }
  return redis;
}

/**
 * A connection for a long-lived worker: it checks once that Redis is there, then rides out outages
 * (a Redis restart) by reconnecting and replaying queued commands, as BullMQ requires
 * (maxRetriesPerRequest: null).
 */
export async function connectLasting(url: string): Promise<Redis> {
  const probe = await connectOnce(url);
  probe.disconnect();
  const redis = new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 100, 1000) });
  redis.on("error", () => {}); // ioredis reconnects by itself; each failed command reports its own error
  return redis;
}

/** TLS verification failures, by Node's error codes: the server's certificate is not one Node trusts. */
const untrustedCertificate = /^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|ERR_TLS_CERT_ALTNAME_INVALID)$/;

/** Why Redis could not be used, in one line that says what to do; never with the password. */
function unreachable(url: string, error: unknown): UsageError {
  const reason = withoutPassword(error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error), url);
  const code = String((error as { code?: unknown })?.code ?? "");
  const at = `Redis at ${shownRedisUrl(url)}`;
  if (reason.startsWith("NOAUTH")) return new UsageError(`${at} wants a password (${reason}); put it in CAIRN_REDIS_URL: redis://:password@host:port, or redis://user:password@host:port for an ACL user.`);
  if (reason.startsWith("WRONGPASS")) return new UsageError(`${at} refused the user name or password in CAIRN_REDIS_URL (${reason}); check them.`);
  if (untrustedCertificate.test(code)) {
    return new UsageError(`${at}: its TLS certificate is not trusted (${reason}); if your own CA signed it, start cairn with NODE_EXTRA_CA_CERTS=/path/to/ca.pem.`);
  }
  const tlsHint = url.startsWith("redis://") && code === "ECONNRESET" ? " If it only takes TLS, use rediss://." : "";
  return new UsageError(`cannot reach ${at} (${reason}). Start one (redis-server) or set CAIRN_REDIS_URL to yours.${tlsHint}`);
}
