import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { recordedSettingKeys, redactedUrl, RecordingError, RunRecorder, type ImagePart, type ModelInfo, type Session, type SessionRunner } from "@cairn/core";
import { SecretRedactor } from "@cairn/core/portable";
import type { Io } from "./io.js";
import type { RunArgs } from "./run-args.js";
import { UsageError } from "./usage-error.js";

/**
 * `--record <file>` for cairn run and cairn resume: the recorder whose fetch goes under the
 * runner's model requests. A run starts the file; a resume adds to the file of its run when there
 * is one (cairn replay then sends its message after the run's), or starts one. Secrets are taken
 * out as cairn export takes them out (keys and tokens of known shapes, the values of this
 * environment's secret variables), wherever they appear in what is written.
 */
export function recorderFor(args: RunArgs, resuming: boolean, env: Io["env"]): RunRecorder | undefined {
  if (!args.record) return undefined;
  const redactor = new SecretRedactor(env);
  try {
    return RunRecorder.open(args.record, { append: resuming && existsSync(args.record), redact: (value) => redactor.redactJson(value) });
  } catch (error) {
    if (error instanceof RecordingError) throw new UsageError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`Cannot write the recording ${args.record} (${code ?? String(error)}); pass --record a file in a folder you can write.`);
  }
}

/** Writes the message, and the session it goes to once that is open (a new task opens as it runs). */
export function recordMessage(recorder: RunRecorder, runner: SessionRunner, message: { text: string; images: readonly ImagePart[]; mode?: "act" | "plan" }): void {
  recorder.message({ text: message.text, ...(message.images.length > 0 ? { images: [...message.images] } : {}), ...(message.mode ? { mode: message.mode } : {}) });
  if (runner.session) return recordSession(recorder, runner.session);
  const unsubscribe = runner.subscribe((event) => {
    if (event.type !== "session_opened") return;
    unsubscribe();
    recordSession(recorder, runner.session!);
  });
}

/** The task the messages go to, as it opened: only how the model was asked (the rest of the settings is the person's, and no replay's to take). */
function recordSession(recorder: RunRecorder, opened: Session): void {
  const merged = opened.settings.settings as Record<string, unknown>;
  const settings = Object.fromEntries(recordedSettingKeys.flatMap((key) => (merged[key] === undefined ? [] : [[key, merged[key]]])));
  if (typeof settings.baseUrl === "string") settings.baseUrl = redactedUrl(settings.baseUrl);
  // What the layers left to defaults is written as chosen, so a replay asks the same way wherever it runs.
  // What the models take is written too, from wherever it was learned (the endpoint, settings, the
  // built-in list), so a replay needs no endpoint to tell it.
  const { model, protocol, fallbackModel, compactionModel } = opened.settings;
  const models = { ...(settings.models as Record<string, unknown> | undefined) };
  for (const one of [model, fallbackModel, compactionModel]) if (one) models[one.id] = { ...(models[one.id] as object | undefined), ...modelSettings(one.info) };
  recorder.session({
    workspace: opened.settings.cwd,
    settings: { ...settings, provider: model.provider, model: model.id, protocol, models },
    mode: opened.task.snapshot().mode,
    yolo: opened.settings.yolo,
    ...(opened.resumed ? { resumed: opened.id } : {}),
  });
}

/**
 * `--record <dir>` for cairn acp and cairn web, whose sessions open tasks one after another: each
 * session's model exchanges go to `<dir>/<task id>.jsonl` (its first task's id; a hand-off's tasks
 * stay in the file of the session they came from), with the person's messages as they are sent.
 * A session reopened later adds to its file, as a resume adds to its run's. `cairn replay` of one
 * file runs that session's task again, as it does a cairn run recording. Images sent with a
 * message are not in these recordings (the runner's events count them, they do not carry them).
 */
export class SessionRecordings {
  private readonly redactor: SecretRedactor;

  private constructor(
    readonly dir: string,
    env: Io["env"],
  ) {
    this.redactor = new SecretRedactor(env);
  }

  /** The recordings of `args.record` (a folder, made now so a bad path fails at start), or none. */
  static of(args: RunArgs, env: Io["env"]): SessionRecordings | undefined {
    if (!args.record) return undefined;
    const dir = path.resolve(args.record);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new UsageError(`Cannot make the recordings folder ${args.record} (${code ?? String(error)}); pass --record a folder you can write.`);
    }
    return new SessionRecordings(dir, env);
  }

  /**
   * Opens a session recorded: `modelFetch` goes to the runner's options; `open` gets them and
   * returns the runner (its task stored, so its id names the file). What the model is asked while
   * the session opens (an endpoint's model list) is not the task's, and is not recorded.
   */
  async record(open: (o: { modelFetch: typeof globalThis.fetch }) => Promise<SessionRunner>): Promise<SessionRunner> {
    let recorded: typeof globalThis.fetch | undefined;
    const runner = await open({ modelFetch: (input, init) => (recorded ?? globalThis.fetch)(input, init) });
    const file = path.join(this.dir, `${runner.id!}.jsonl`);
    let recorder: RunRecorder;
    try {
      recorder = RunRecorder.open(file, { append: existsSync(file), redact: (value) => this.redactor.redactJson(value) });
    } catch (error) {
      // One unreadable recording does not keep the session from opening: it goes on unrecorded.
      process.stderr.write(`cairn: cannot record task ${runner.id!} in ${file} (${error instanceof Error ? error.message : String(error)}); it goes on unrecorded.\n`);
      return runner;
    }
    recorded = recorder.fetch();
    let sessionWritten = false;
    let mode: "act" | "plan" | undefined;
    runner.subscribe((event) => {
      if (event.type === "system" && event.subtype === "mode") mode = event.mode;
      if (event.type !== "user_message") return;
      recorder.message({ text: event.text, ...(mode ? { mode } : {}) });
      mode = undefined;
      if (sessionWritten || !runner.session) return;
      sessionWritten = true;
      recordSession(recorder, runner.session);
    });
    return runner;
  }
}

/** A model's capabilities as settings.json's "models" entry spells them. */
function modelSettings(info: ModelInfo): Record<string, unknown> {
  const entry: Record<string, unknown> = { images: info.supportsImages, contextWindow: info.contextWindow, maxOutput: info.maxOutputTokens };
  if (info.nativeTools !== undefined) entry.nativeTools = info.nativeTools;
  if (info.reasoning !== undefined) entry.reasoning = info.reasoning;
  if (info.pricing !== undefined) entry.pricing = info.pricing;
  return entry;
}
