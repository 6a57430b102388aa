/**
 * Where the fleet keeps things in Redis. BullMQ owns the queue's own keys (prefix "bull:"); these are
 * the fleet's additions beside them, all under "cairn:fleet:".
 */
export const queueName = "cairn-fleet";

const root = "cairn:fleet";

export const fleetKeys = {
  /** A job's events, one stream entry per event (field "e": the event's JSON), for `fleet watch`. */
  events: (jobId: string) => `${root}:events:${jobId}`,
  /** Present while a cancel of the job is asked for; a worker that holds or takes the job stops it. */
  cancel: (jobId: string) => `${root}:cancel:${jobId}`,
  /** Until when (ms since the epoch) every worker holds back new requests to a provider after a 429. */
  providerPause: (provider: string) => `${root}:provider:${provider}:pause-until`,
  /** Jobs running against a provider: a sorted set of job ids scored by lease expiry (ms). */
  providerRunning: (provider: string) => `${root}:provider:${provider}:running`,
  /** Dollars a batch has spent so far (INCRBYFLOAT). */
  batchSpent: (batchId: string) => `${root}:batch:${batchId}:spent`,
};

/** How long a finished job's event stream and batch counters stay in Redis. */
export const retentionSeconds = 7 * 24 * 3600;
