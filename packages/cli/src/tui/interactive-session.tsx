/** @jsxRuntime automatic */
import { render } from "ink";
import type { ResolvedSettings } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { FileIndex } from "@cairn/host/completion";
import { App } from "./app.js";
import { bracketedPaste } from "./bracketed-paste.js";
import { SessionController } from "./session-controller.js";
import { SessionView } from "./session-view.js";
import { themeFor } from "./theme.js";

export type TerminalStreams = { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream };

/**
 * Runs the interactive session on a terminal until the person leaves. Returns the task that was
 * open (so the caller can say how to resume it).
 */
export async function runInteractiveSession(args: RunArgs, io: Io, config: ResolvedSettings, streams: TerminalStreams): Promise<{ taskId: string | undefined; stillRunning: boolean }> {
  const view = new SessionView({ columns: streams.stdout.columns || 80, rows: streams.stdout.rows || 24 });
  const session = new SessionController(args, io, view, config);
  const files = new FileIndex(config.cwd);
  // Pasted text then comes marked, so a paste's newlines stay newlines and Enter typed right after
  // text (tmux send-keys, a fast typist) still sends.
  const pasteOff = () => streams.stdout.write(bracketedPaste.disable);
  streams.stdout.write(bracketedPaste.enable);
  process.once("exit", pasteOff);
  const instance = render(<App session={session} theme={themeFor(io.env)} files={files} />, {
    stdin: streams.stdin,
    stdout: streams.stdout,
    stderr: streams.stderr,
    exitOnCtrlC: false,
    kittyKeyboard: { mode: "auto" },
  });
  const leave = () => void session.exit();
  process.on("SIGTERM", leave);
  process.on("SIGHUP", leave);
  process.on("SIGINT", leave);
  try {
    void session.start().catch((error: unknown) => view.add({ kind: "error", text: (error as Error).message }));
    await instance.waitUntilExit();
  } finally {
    process.off("SIGTERM", leave);
    process.off("SIGHUP", leave);
    process.off("SIGINT", leave);
    view.dispose();
    pasteOff();
    process.off("exit", pasteOff);
  }
  return { taskId: session.opened?.store.id, stillRunning: session.running };
}
