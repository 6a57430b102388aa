import path from "node:path";
import { parseArgs } from "node:util";
import {
  modes,
  providers,
  readRecording,
  recordedSettingKeys,
  RecordingError,
  RecordingReplay,
  SessionRunner,
  settingFromText,
  settingOptions,
  type Recording,
  type RecordedSession,
  type SessionOverrides,
  type TaskResult,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { argumentError, UsageError } from "@cairn/host/usage-error";
import { driveHeadless, exitCodes } from "../headless.js";

export const replayHelp = `Usage: cairn replay <file> [--cwd dir] [--yolo] [--auto-approve list] [--sandbox mode] [--json]

Runs a task recorded with cairn run --record <file> again, in --cwd (default: the current
directory), against the recording: no model is asked and nothing goes to the network for it.
Each model request is answered with the recorded response; the tools really run (files are
written, commands run in the sandbox as usual). The first request whose tool results differ from
the recorded one, or that the recording has no reply for, is one line naming the step, exit code 1.

The recording says how the model was asked (provider, model, protocol, what the model takes),
never what the run may do: approvals, the sandbox, command rules, hooks and limits are yours (these
flags and your settings), as for cairn run in that folder. A run recorded with --yolo replays as
recorded only with --yolo.

Options:
  --cwd <dir>             the workspace to replay into
  --yolo                  approve everything
  --auto-approve <list>   as cairn run's (default: read)
  --sandbox <mode>        as cairn run's (default: workspace-write)
  --json        one JSON event per line on stdout, as cairn run --json
  -h, --help    this help`;

/** `cairn replay <file>`: the recorded task, run again with the recording as its model. */
export async function replayCommand(argv: string[], io: Io): Promise<number> {
  const options = {
    cwd: { type: "string" },
    json: { type: "boolean" },
    yolo: { type: "boolean" },
    "auto-approve": { type: "string" },
    sandbox: { type: "string" },
    help: { type: "boolean", short: "h" },
  } as const;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw argumentError(error, Object.keys(options), "cairn replay");
  }
  if (parsed.values.help) {
    io.stdout(`${replayHelp}\n`);
    return 0;
  }
  const [file, ...extra] = parsed.positionals;
  if (!file || extra.length > 0) throw new UsageError("Which recording? cairn replay <file> [--cwd dir] (written by cairn run --record <file>).");
  const recording = read(file);
  const [first] = recording.sessions;
  const [message] = recording.messages;
  if (!first || !message) throw new UsageError(`${file} holds no task: its run ended before a task opened, so there is nothing to replay.`);
  if (first.resumed) {
    throw new UsageError(`${file} starts in the middle of task ${first.resumed} (recorded by cairn resume): replay needs its run too; record it with cairn run --record, then resume with the same --record file.`);
  }
  const cwd = path.resolve(parsed.values.cwd ?? process.cwd());
  const replay = new RecordingReplay(recording, { live: cwd, recorded: first.workspace });
  const yours = yourFlags(parsed.values);
  const overrides: SessionOverrides = { ...askedAsRecorded(first, file), ...yours };
  if (first.yolo && !yours.yolo) io.stderr(`cairn: ${file} was recorded with --yolo; this replay approves only what your flags and settings approve (pass --yolo to approve everything, as the recorded run did).\n`);
  const runner = SessionRunner.fresh({ cwd, env: withoutKeys(io.env), overrides, modelFetch: replay.fetch, discover: false });
  const send = async (): Promise<TaskResult> => {
    let result: TaskResult | undefined;
    for (const [index, next] of recording.messages.entries()) {
      if (index > 0 && isMode(next.mode)) runner.setMode(next.mode);
      result = await runner.send(next.text, next.images ?? []);
      if (replay.divergence) break;
    }
    return result!;
  };
  const json = parsed.values.json === true;
  const code = await driveHeadless(runner, message.text, message.images ?? [], json, io, send);
  const diverged = replay.outcome();
  if (diverged) {
    // A request that diverged failed the task with these words, which the progress lines showed.
    if (json || !replay.divergence) io.stderr(`cairn: ${diverged}\n`);
    return exitCodes.failed;
  }
  io.stderr(`cairn: the replay went as recorded (${replay.replies} model ${replay.replies === 1 ? "reply" : "replies"}).\n`);
  return code;
}

/**
 * The recorded session's way of asking (recordedSettingKeys), each value checked as settings.json's
 * would be; anything else a recording says of its settings (approvals, yolo, the sandbox, command
 * rules, language servers) is not read: a replay's power is the person's own flags and settings.
 */
function askedAsRecorded(session: RecordedSession, file: string): SessionOverrides {
  const out: Record<string, unknown> = {};
  const recorded = (session.settings ?? {}) as Record<string, unknown>;
  for (const key of recordedSettingKeys) {
    if (recorded[key] === undefined) continue;
    const checked = settingOptions[key].schema.safeParse(recorded[key]);
    if (!checked.success) throw new UsageError(`${file} records a "${key}" setting that is not valid; record the run again.`);
    out[key] = checked.data;
  }
  return { ...out, ...(isMode(session.mode) ? { mode: session.mode } : {}) } as SessionOverrides;
}

/** The person's own say over what the replay may do: the only source of its power. */
function yourFlags(values: { yolo?: boolean; "auto-approve"?: string; sandbox?: string }): SessionOverrides {
  return {
    ...(values.yolo ? { yolo: true } : {}),
    ...(values["auto-approve"] !== undefined ? { autoApprove: settingFromText("autoApprove", values["auto-approve"], "--auto-approve") } : {}),
    ...(values.sandbox !== undefined ? { sandbox: settingFromText("sandbox", values.sandbox, "--sandbox") } : {}),
  };
}

function isMode(mode: unknown): mode is "act" | "plan" {
  return (modes as readonly unknown[]).includes(mode);
}

function read(file: string): Recording {
  try {
    return readRecording(file);
  } catch (error) {
    if (error instanceof RecordingError) throw new UsageError(error.message);
    throw error;
  }
}

/** No real key reaches a replay (nothing is sent anywhere); the placeholder satisfies providers that need one. */
function withoutKeys(env: Io["env"]): Io["env"] {
  const out = { ...env };
  for (const name of Object.values(providers).flatMap((p) => p.keyEnv)) delete out[name];
  out.CAIRN_API_KEY = "replay-needs-no-key";
  return out;
}
