import path from "node:path";
import { Checkpoints } from "@cairn/core";
import type { RunConfig } from "./config.js";
import type { Io } from "./headless.js";

/**
 * The workspace's checkpoints, or none (with a warning), for acp/open-acp-task.ts until it opens
 * tasks with core's openSession (which does this itself). Delete with its last importer.
 */
export async function openCheckpoints(config: RunConfig, io: Io): Promise<Checkpoints | undefined> {
  if (!config.checkpoints) return undefined;
  try {
    return await Checkpoints.open({
      workspace: config.cwd,
      baseDir: path.join(config.home, "checkpoints"),
      ...(config.checkpointsLazyAboveFiles !== undefined ? { lazyAboveFiles: config.checkpointsLazyAboveFiles } : {}),
    });
  } catch (error) {
    io.stderr(`cairn: checkpoints are off for this task: ${(error as Error).message.split("\n")[0]}\n`);
    return undefined;
  }
}
