import { existsSync } from "node:fs";
import { recordedSettingKeys, redactedUrl, RecordingError, RunRecorder, type ImagePart, type ModelInfo, type SessionRunner } from "@cairn/core";
import { SecretRedactor } from "@cairn/core/portable";
import type { Io } from "@cairn/host/io";
import type { RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

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
  const session = () => {
    const opened = runner.session!;
    // Only how the model was asked: the rest of the settings is the person's, and no replay's to take.
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
  };
  if (runner.session) return session();
  const unsubscribe = runner.subscribe((event) => {
    if (event.type !== "session_opened") return;
    unsubscribe();
    session();
  });
}

/** A model's capabilities as settings.json's "models" entry spells them. */
function modelSettings(info: ModelInfo): Record<string, unknown> {
  const entry: Record<string, unknown> = { images: info.supportsImages, contextWindow: info.contextWindow, maxOutput: info.maxOutputTokens };
  if (info.nativeTools !== undefined) entry.nativeTools = info.nativeTools;
  if (info.reasoning !== undefined) entry.reasoning = info.reasoning;
  if (info.pricing !== undefined) entry.pricing = info.pricing;
  return entry;
}
