import { parseArgs } from "node:util";
import { modes, settingFromText, settingOptions, type Mode, type SessionOverrides, type SettingKey } from "@cairn/core";
import { argumentError, UsageError } from "./usage-error.js";

/**
 * `cairn run` (and resume, and the interactive session) arguments: the task, where, how to print,
 * and the session overrides the flags set. The flags of settings come from core's settings table,
 * so a setting gets its flag, its help line and its parsing in one place.
 */
export type RunArgs = SessionOverrides & {
  task: string;
  cwd: string;
  json: boolean;
  /** --image files (repeatable): pictures sent with the message. */
  images?: string[];
  /** -c / --continue: carry on the last task of this workspace. */
  continue?: boolean;
  /** --record <file>: the run's model exchanges written there, for cairn replay. */
  record?: string;
};

/** The flags that set a setting, in the table's order. */
const settingFlags = (Object.entries(settingOptions) as Array<[SettingKey, { flag?: { name: string; arg: string; help: string } }]>).flatMap(([key, o]) =>
  o.flag ? [{ key, ...o.flag }] : [],
);

/** The environment variables that set a setting. */
const envNames = Object.values(settingOptions as Record<string, { env?: string }>).flatMap((o) => (o.env ? [o.env] : []));

function helpLine(left: string, help: string): string {
  // Line breaks in a help text are only hints: the text is wrapped here, to one width.
  const lines = wrap(help.replace(/\s*\n\s*/g, " "), 66);
  return lines.map((line, i) => `  ${(i === 0 ? left : "").padEnd(24)} ${line}`).join("\n");
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

export const runHelp = `Usage: cairn run [options] [--] <task...>

Runs one task without a person at the keyboard. Progress goes to stderr; the final answer to stdout.

Options:
${[
  helpLine("--cwd <dir>", "workspace (default: current directory)"),
  ...settingFlags.map((f) => helpLine(`--${f.name} ${f.arg}`, f.help)),
  helpLine("--mode act|plan", "act (default) changes things; plan only explores"),
  helpLine("--yolo", "approve everything"),
  helpLine("--image <file>", "attach a picture (PNG, JPEG, GIF, WebP) to the message; repeatable;\nrefused by models that do not take images"),
  helpLine("-c, --continue", "carry on the last task of this workspace (the words are the message)"),
  helpLine("--record <file>", "record the run's model exchanges there (secrets left out), to replay with\ncairn replay <file>; a resume adds to the recording of its run"),
  helpLine("--json", "one JSON event per line on stdout, nothing else on stdout"),
  helpLine("-h, --help", "this help"),
].join("\n")}

${wrap(`Flags win over the environment (${envNames.join(", ")}), which wins over the workspace's .cairn/settings.json (once trusted with cairn trust), which wins over CAIRN_HOME/settings.json.`, 96).join("\n")}

Exit codes: 0 completed, 1 failed, 2 bad usage or configuration, 3 needs the person (a question).`;

/** Parses `cairn run` arguments into typed values, once, at the edge. */
export function parseRunArgs(argv: string[], cwd: string): RunArgs | "help" {
  const options = {
    cwd: { type: "string" },
    mode: { type: "string" },
    yolo: { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
    image: { type: "string", multiple: true },
    continue: { type: "boolean", short: "c" },
    record: { type: "string" },
    ...Object.fromEntries(settingFlags.map((f) => [f.name, { type: "string" as const }])),
  } as const;
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options });
  } catch (error) {
    throw argumentError(error, Object.keys(options), "cairn run");
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  if (v.help) return "help";
  const args: RunArgs = { task: parsed.positionals.join(" ").trim(), cwd: typeof v.cwd === "string" ? v.cwd : cwd, json: v.json === true };
  if (v.yolo === true) args.yolo = true;
  if (Array.isArray(v.image)) args.images = v.image;
  if (v.continue === true) args.continue = true;
  if (typeof v.record === "string") args.record = v.record;
  if (typeof v.mode === "string") {
    if (!(modes as readonly string[]).includes(v.mode)) throw new UsageError(`--mode must be act or plan, got "${v.mode}".`);
    args.mode = v.mode as Mode;
  }
  const overrides = args as Record<string, unknown>;
  for (const flag of settingFlags) {
    const text = v[flag.name];
    if (typeof text === "string") overrides[flag.key] = settingFromText(flag.key, text, `--${flag.name}`);
  }
  return args;
}

/** The session overrides in parsed arguments (what is not the task, the workspace or the output). */
export function overridesOf(args: RunArgs): SessionOverrides {
  const { task: _task, cwd: _cwd, json: _json, images: _images, continue: _continue, record: _record, ...overrides } = args;
  return overrides;
}
