import type { Io } from "@cairn/host/io";
import { isUsageError } from "@cairn/host/usage-error";
import { exitCodes } from "./exit-codes.js";
import { failureLine, writeFailureLog } from "./failure-log.js";

/**
 * How every entry of the command ends a failure: bad usage is one line and exit code 2, anything
 * else one line and the stack in the failure log. Shared by main.ts (every command) and
 * run-main.ts, which is also the whole of the code-cached `cairn run` bundle.
 */
export async function guarded(argv: readonly string[], io: Io, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (isUsageError(error)) {
      io.stderr(`cairn: ${error.message}\n`);
      return exitCodes.usage;
    }
    return reportUnexpected(error, io, argv);
  }
}

/** A failure nobody planned for: one line for the person, the stack in a log whose path is printed. */
export function reportUnexpected(error: unknown, io: Io, argv: readonly string[]): number {
  const log = writeFailureLog(error, io.env, argv);
  const where = log ? ` Details are in ${log}; please include them if you report this.` : "";
  io.stderr(`cairn: unexpected error: ${failureLine(error)}.${where}\n`);
  return exitCodes.failed;
}

/**
 * Errors that escape every handler (a rejected promise nobody awaited, a throw in a callback) end
 * the process the same way: one line, the stack in the log, exit code 1.
 */
export function installCrashHandlers(argv: readonly string[], io: Io = defaultIo()): void {
  let crashed = false;
  const crash = (error: unknown) => {
    if (crashed) return; // a second failure while reporting the first adds nothing
    crashed = true;
    process.exit(reportUnexpected(error, io, argv));
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  // A reader that went away is no failure of Cairn's: it ends quietly, its output cut, as git does.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => (error.code === "EPIPE" ? process.exit(exitCodes.readerGone) : crash(error)));
}

export function defaultIo(): Io {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
  };
}
