import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { queueName } from "./fleet-keys.js";
import { connectOnce, redisUrl } from "./redis-connection.js";

/** The queue for a short command, on a connection that fails fast with one line. */
export async function openQueue(env: Record<string, string | undefined>): Promise<{ queue: Queue; redis: Redis; close: () => Promise<void> }> {
  const redis = await connectOnce(redisUrl(env));
  const queue = new Queue(queueName, { connection: redis });
  return {
    queue,
    redis,
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
  };
}
