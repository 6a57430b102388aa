import { parseArgs } from "node:util";
import { isProviderId, isSandboxMode, parseApprovalList, providerIds, sandboxModes, type ApprovalCategory, type ProviderId, type SandboxMode } from "@cairn/core";
import { UsageError } from "./usage-error.js";

export type RunArgs = {
  task: string;
  cwd: string;
  provider?: ProviderId;
  model?: string;
  baseUrl?: string;
  fallbackModel?: string;
  protocol?: "xml" | "native";
  /** Undefined when not given: run defaults to act, resume keeps the task's mode. */
  mode?: "act" | "plan";
  yolo: boolean;
  autoApprove?: ApprovalCategory[];
  maxTurns?: number;
  maxBudgetUsd?: number;
  compaction?: "auto" | "truncate" | "off";
  retries?: number;
  /** Undefined when not given: CAIRN_SANDBOX, then settings.json, then workspace-write. */
  sandbox?: SandboxMode;
  /** Seconds to wait for a model response's first byte and between two chunks. */
  requestTimeout?: number;
  json: boolean;
};

export const runHelp = `Usage: cairn run [options] [--] <task...>

Runs one task without a person at the keyboard. Progress goes to stderr; the final answer to stdout.

Options:
  --cwd <dir>              workspace (default: current directory)
  --provider <id>          ${providerIds.join(" | ")}
  --model <id>             model id (default: the provider's default, or CAIRN_MODEL)
  --base-url <url>         API root of the provider (for openai-compatible endpoints)
  --fallback-model <id>    model that takes over when the main one keeps failing
  --protocol xml|native    how tool calls travel (default: native; xml for ollama and lmstudio)
  --mode act|plan          act (default) changes things; plan only explores
  --yolo                   approve everything
  --auto-approve <list>    comma list: read, read-external, edit, edit-external,
                           safe-commands, all-commands, browser, mcp (default: read)
  --max-turns <n>          stop after n model turns
  --max-budget-usd <usd>   stop before a request once the task has cost this much
  --compaction <how>       auto (summarise when the window fills) | truncate | off
  --retries <n>            retries of a failed model request (default 4)
  --sandbox <mode>         OS sandbox for commands: workspace-write (default) | read-only |
                           off | required (workspace-write, or exit 2 if it cannot start)
  --request-timeout <s>    longest wait for a model response to start or go on (default 120)
  --json                   one JSON event per line on stdout, nothing else on stdout
  -h, --help               this help

Exit codes: 0 completed, 1 failed, 2 bad usage or configuration, 3 needs the person (a question).`;

function positiveInt(flag: string, value: string | undefined, allowZero = false): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) throw new UsageError(`${flag} needs a whole number${allowZero ? "" : " above 0"}, got "${value}".`);
  return n;
}

/** Parses `cairn run` arguments into typed values, once, at the edge. */
export function parseRunArgs(argv: string[], cwd: string): RunArgs | "help" {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        cwd: { type: "string" },
        provider: { type: "string" },
        model: { type: "string" },
        "base-url": { type: "string" },
        "fallback-model": { type: "string" },
        protocol: { type: "string" },
        mode: { type: "string" },
        yolo: { type: "boolean" },
        "auto-approve": { type: "string" },
        "max-turns": { type: "string" },
        "max-budget-usd": { type: "string" },
        compaction: { type: "string" },
        retries: { type: "string" },
        sandbox: { type: "string" },
        "request-timeout": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn run --help)`);
  }
  const v = parsed.values;
  if (v.help) return "help";
  if (v.provider !== undefined && !isProviderId(v.provider)) {
    throw new UsageError(`Unknown provider "${v.provider}". Use one of: ${providerIds.join(", ")}.`);
  }
  if (v.protocol !== undefined && v.protocol !== "xml" && v.protocol !== "native") {
    throw new UsageError(`--protocol must be xml or native, got "${v.protocol}".`);
  }
  if (v.mode !== undefined && v.mode !== "act" && v.mode !== "plan") throw new UsageError(`--mode must be act or plan, got "${v.mode}".`);
  let autoApprove: ApprovalCategory[] | undefined;
  if (v["auto-approve"] !== undefined) {
    const { categories, unknown } = parseApprovalList(v["auto-approve"]);
    if (unknown.length > 0) {
      throw new UsageError(`Unknown --auto-approve value "${unknown.join(",")}". Use: read, read-external, edit, edit-external, safe-commands, all-commands, browser, mcp.`);
    }
    autoApprove = categories;
  }
  const args: RunArgs = {
    task: parsed.positionals.join(" ").trim(),
    cwd: v.cwd ?? cwd,
    yolo: v.yolo === true,
    json: v.json === true,
  };
  if (v.mode !== undefined) args.mode = v.mode as "act" | "plan";
  if (v.provider !== undefined) args.provider = v.provider as ProviderId;
  if (v.model !== undefined) args.model = v.model;
  if (v["base-url"] !== undefined) args.baseUrl = v["base-url"];
  if (v["fallback-model"] !== undefined) args.fallbackModel = v["fallback-model"];
  if (v.protocol !== undefined) args.protocol = v.protocol as RunArgs["protocol"];
  if (autoApprove) args.autoApprove = autoApprove;
  const maxTurns = positiveInt("--max-turns", v["max-turns"]);
  if (maxTurns !== undefined) args.maxTurns = maxTurns;
  if (v.compaction !== undefined) {
    if (v.compaction !== "auto" && v.compaction !== "truncate" && v.compaction !== "off") throw new UsageError(`--compaction must be auto, truncate or off, got "${v.compaction}".`);
    args.compaction = v.compaction;
  }
  if (v["max-budget-usd"] !== undefined) {
    const budget = Number(v["max-budget-usd"]);
    if (!Number.isFinite(budget) || budget <= 0) throw new UsageError(`--max-budget-usd needs an amount in dollars above 0, got "${v["max-budget-usd"]}".`);
    args.maxBudgetUsd = budget;
  }
  if (v.sandbox !== undefined) {
    if (!isSandboxMode(v.sandbox)) throw new UsageError(`--sandbox must be one of ${sandboxModes.join(", ")}, got "${v.sandbox}".`);
    args.sandbox = v.sandbox;
  }
  const retries = positiveInt("--retries", v.retries, true);
  if (retries !== undefined) args.retries = retries;
  if (v["request-timeout"] !== undefined) {
    const seconds = Number(v["request-timeout"]);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--request-timeout needs a number of seconds above 0, got "${v["request-timeout"]}".`);
    args.requestTimeout = seconds;
  }
  return args;
}
