import type { Io } from "@cairn/host/io";
import { cancelJob, retryJob } from "@cairn/host/fleet/job-control";
import { openQueue } from "@cairn/host/fleet/open-queue";

/** `cairn fleet cancel <job>`. */
export async function cancelCommand(argv: string[], io: Io): Promise<number> {
  const { queue, redis, close } = await openQueue(io.env);
  try {
    io.stdout(`${await cancelJob(queue, redis, argv[0])}\n`);
    return 0;
  } finally {
    await close();
  }
}

/** `cairn fleet retry <job>`: runs a failed, cancelled or finished job again, from a fresh checkout. */
export async function retryCommand(argv: string[], io: Io): Promise<number> {
  const { queue, redis, close } = await openQueue(io.env);
  try {
    io.stdout(`${await retryJob(queue, redis, argv[0])}\n`);
    return 0;
  } finally {
    await close();
  }
}
