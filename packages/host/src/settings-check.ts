import { cairnHome, loadSettings, SettingsError } from "@cairn/core";
import { UsageError } from "./usage-error.js";

/**
 * A long-running host (cairn web, cairn acp) checks the person's settings.json before it serves:
 * broken, every task it opened would fail on it, each with the same error, long after the start.
 * Refused here in one line naming the file and the problem, as cairn run refuses it.
 */
export function refuseBrokenSettings(env: Record<string, string | undefined>): void {
  try {
    loadSettings(cairnHome(env));
  } catch (error) {
    if (error instanceof SettingsError) throw new UsageError(error.message);
    throw error;
  }
}
