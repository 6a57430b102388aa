import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { refuseBrokenSettings } from "@cairn/host/settings-check";
import { UsageError } from "@cairn/host/usage-error";
import { cairnAgent } from "./acp-agent.js";

export const acpHelp = `Usage: cairn acp [run options]

Serves the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains IDEs, Neovim,
Emacs): the editor starts it and sends the prompts. The options are cairn run's (see
cairn run --help), applied to every session; the workspace is the one the editor names.
With --record <dir>, each session's model exchanges go to <dir>/<task id>.jsonl (cairn replay).`;

/**
 * \`cairn acp\`: stdout carries the protocol and nothing else; every notice goes to stderr (the
 * editor's log). Returns when the editor closes the connection.
 */
export async function acpCommand(args: RunArgs, io: Io, version: string): Promise<number> {
  if (args.task !== "") throw new UsageError(`cairn acp takes no task ("${args.task}"): the editor sends the prompts.`);
  if (args.json) throw new UsageError("cairn acp speaks ACP on stdout; --json does not apply.");
  refuseBrokenSettings(io.env);
  // A stray console.log anywhere would corrupt the protocol stream.
  console.log = console.error;
  console.info = console.error;
  const quiet: Io = { ...io, stdout: io.stderr };
  const { app, closeAll } = cairnAgent(args, quiet, version);
  const stream = ndJsonStream(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const connection = app.connect(stream);
  await connection.closed;
  await closeAll();
  return 0;
}
