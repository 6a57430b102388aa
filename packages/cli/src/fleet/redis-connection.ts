import { Redis } from "ioredis";
import { UsageError } from "../usage-error.js";

export const defaultRedisUrl = "redis://127.0.0.1:6379";

export function redisUrl(env: Record<string, string | undefined>): string {
  return env.CAIRN_REDIS_URL?.trim() || defaultRedisUrl;
}

/** The Redis URL as it may be printed or sent to a page: any password (and user name) replaced by ***. */
export function shownRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password === "" && parsed.username === "") return url;
    if (parsed.username !== "") parsed.username = "***";
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    // Not a URL ioredis would take either; show only its scheme-less host part, never what may be a secret.
    return url.replace(/\/\/[^@/]*@/, "//***@");
  }
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

function unreachable(url: string, error: unknown): UsageError {
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new UsageError(`cannot reach Redis at ${shownRedisUrl(url)} (${reason}). Start one (redis-server) or set CAIRN_REDIS_URL to yours.`);
}
