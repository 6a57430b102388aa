import os from "node:os";
import path from "node:path";

/**
 * Where Cairn keeps its data: CAIRN_HOME, else ~/.cairn. A leaf with nothing but Node built-ins,
 * published as `@cairn/core/cairn-home`, so a host can name the folder (for a crash log, say)
 * without loading the agent.
 */
export function cairnHome(env: Record<string, string | undefined> = process.env): string {
  const fromEnv = env.CAIRN_HOME?.trim();
  return fromEnv ? path.resolve(fromEnv) : path.join(os.homedir(), ".cairn");
}
