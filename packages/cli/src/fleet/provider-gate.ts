import { setTimeout as sleep } from "node:timers/promises";
import type { Redis } from "ioredis";
import { fleetKeys } from "@cairn/host/fleet/fleet-keys";

/**
 * What every worker shares about a provider, in Redis: a pause after a 429 (so one worker's rate
 * limit slows them all, not just itself), and a cap on jobs running against it at once.
 */

/** After a 429 (or an overload): no worker starts a job on this provider before `until`. */
export async function pauseProvider(redis: Redis, provider: string, forMs: number): Promise<void> {
  const until = Date.now() + forMs;
  // Keep the later of two pauses: a short retry-after must not cut a longer one short.
  await redis.eval(
    "local cur = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end return 1",
    1,
    fleetKeys.providerPause(provider),
    String(until),
    String(forMs),
  );
}

export async function pausedUntil(redis: Redis, provider: string): Promise<number> {
  return Number((await redis.get(fleetKeys.providerPause(provider))) ?? 0);
}

/** Waits out a provider's pause; returns how long it waited (0 when it was not paused: no "waited 0s" on every job). */
export async function waitForProvider(redis: Redis, provider: string, signal: AbortSignal): Promise<number> {
  const started = Date.now();
  let paused = false;
  for (;;) {
    const until = await pausedUntil(redis, provider);
    if (until <= Date.now()) return paused ? Date.now() - started : 0;
    paused = true;
    await sleep(Math.min(until - Date.now(), 1000), undefined, { signal });
  }
}

const acquireScript = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
return 0`;

/**
 * Takes one of `cap` places for a job on this provider, waiting until one frees up. A place is a
 * lease renewed while the job runs, so a worker that dies frees its places when the lease lapses.
 * Returns the release function.
 */
export async function takeProviderPlace(redis: Redis, provider: string, cap: number, jobId: string, signal: AbortSignal, leaseMs = 30_000): Promise<() => Promise<void>> {
  const key = fleetKeys.providerRunning(provider);
  const take = async () => {
    const now = Date.now();
    return (await redis.eval(acquireScript, 1, key, String(now), String(cap), jobId, String(now + leaseMs), String(leaseMs * 2))) === 1;
  };
  while (!(await take())) await sleep(250, undefined, { signal });
  const renew = setInterval(() => void take().catch(() => {}), leaseMs / 3);
  return async () => {
    clearInterval(renew);
    await redis.zrem(key, jobId).catch(() => {});
  };
}
