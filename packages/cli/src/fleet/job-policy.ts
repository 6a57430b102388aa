import { approvalCategories, providerIds, settingOptions } from "@cairn/core";
import type { RunArgs } from "@cairn/host/run-args";
import { UsageError } from "@cairn/host/usage-error";

/**
 * A worker's own policy: what a job may ask of it. A job is a request (even a signed one comes
 * from whoever holds the fleet's secret, through a queue others may read), so the run options that
 * widen what a run may do, or where the worker's keys go, are the worker's to allow, with
 * `cairn fleet worker --allow …`. Every run option is classified here: a harmless one passes, one
 * that widens power needs its allowance, and one not classified yet (a newer `cairn run` option)
 * is refused until it is.
 */
export type WorkerPolicy = {
  /** sandbox-off, yolo, auto-approve=<category>, provider=<id> as given to --allow. */
  allows: ReadonlySet<string>;
  /** Base URLs jobs may name besides the worker's own (normalized, see urlKey). */
  baseUrls: ReadonlySet<string>;
  /** The provider the worker's own configuration names (CAIRN_PROVIDER, settings, else anthropic): a job may name it. */
  ownProvider: string;
  /** The base URL the worker's own configuration names, if any: a job may name it. */
  ownBaseUrl: string | undefined;
};

/** Run arguments that change nothing about what a run may reach or do: the model, limits, output. */
const harmless: ReadonlySet<string> = new Set([
  "task",
  "cwd",
  "json",
  "model",
  "fallbackModel",
  "protocol",
  "maxTurns",
  "maxBudgetUsd",
  "maxHandoffs",
  "compaction",
  "requestTimeout",
  "thinking",
  "effort",
  "retry",
  "mode",
]);

/** Approvals within the workspace, which the sandbox bounds: what any job of a coding fleet needs. */
const approvedWithoutAllowance: ReadonlySet<string> = new Set(["read", "edit"]);

/** A URL as a worker compares it: parsed, so http://Host:80/v1 and http://host/v1 are one endpoint. */
export function urlKey(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

function hasCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}

/** A URL for a message: without a user or password in it. */
function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    return parsed.href;
  } catch {
    return JSON.stringify(url);
  }
}

export const allowHelp = `  --allow <what>,...           what jobs may ask of this worker (repeatable); by default a job gets
                               none of these and is refused if it asks:
                                 sandbox-off              --sandbox off
                                 yolo                     --yolo (its file tools then read outside the
                                                          checkout: other jobs' records, too)
                                 auto-approve=<category>  --auto-approve <category> beyond read and edit
                                                          (read-external, edit-external, safe-commands,
                                                          all-commands, browser, mcp)
                                 provider=<id>            --provider <id> other than this worker's own
                                 base-url=<url>           --base-url <url> other than this worker's own
                                                          (this worker's key is sent there)`;

/** Reads `--allow` values ("yolo,sandbox-off", "base-url=http://…") into a policy. */
export function workerPolicy(values: readonly string[], own: { provider: string | undefined; baseUrl: string | undefined }): WorkerPolicy {
  const allows = new Set<string>();
  const baseUrls = new Set<string>();
  for (const value of values) {
    // A URL may hold a comma; what follows base-url= is one URL up to the next item that names an allowance.
    for (const item of value.split(/,(?=\s*(?:sandbox-off|yolo|auto-approve=|provider=|base-url=))/)) {
      const text = item.trim();
      const [name, arg] = text.includes("=") ? [text.slice(0, text.indexOf("=")), text.slice(text.indexOf("=") + 1)] : [text, undefined];
      if ((name === "sandbox-off" || name === "yolo") && arg === undefined) allows.add(name);
      else if (name === "auto-approve" && arg !== undefined && (approvalCategories as readonly string[]).includes(arg)) allows.add(`auto-approve=${arg}`);
      else if (name === "provider" && arg !== undefined && (providerIds as readonly string[]).includes(arg)) allows.add(`provider=${arg}`);
      else if (name === "base-url" && arg !== undefined && hasCredentials(arg))
        throw new UsageError(`--allow base-url=${shownUrl(arg)}: a base URL holds no user name or password (runs refuse one); give the URL without them.`);
      else if (name === "base-url" && arg !== undefined && urlKey(arg) !== undefined) baseUrls.add(urlKey(arg)!);
      else
        throw new UsageError(
          `--allow "${text}" is not one of sandbox-off, yolo, auto-approve=<${approvalCategories.join("|")}>, provider=<${providerIds.join("|")}>, base-url=<url> (see cairn fleet worker --help).`,
        );
    }
  }
  return { allows, baseUrls, ownProvider: own.provider ?? "anthropic", ownBaseUrl: own.baseUrl === undefined ? undefined : urlKey(own.baseUrl) };
}

/** The flag a run argument comes from, as a person would type it. */
function flagOf(key: string): string {
  const option = (settingOptions as Record<string, { flag?: { name: string } }>)[key];
  return `--${option?.flag?.name ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

const needs = (asked: string, why: string, allowance: string) => `${asked} ${why}; this worker allows it only when started with --allow ${allowance}`;

/** Why this worker refuses a job's run arguments, or undefined when its policy lets every one of them through. */
export function policyRefusal(args: RunArgs, policy: WorkerPolicy): string | undefined {
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || harmless.has(key)) continue;
    switch (key) {
      case "yolo":
        if (value === true && !policy.allows.has("yolo")) return needs("--yolo", "approves every action of the run", "yolo");
        continue;
      case "sandbox": {
        const mode = (value as { mode?: string }).mode;
        if (mode === "off" && !policy.allows.has("sandbox-off")) return needs("--sandbox off", "runs the job's commands outside the OS sandbox", "sandbox-off");
        if (Object.keys(value as object).some((k) => k !== "mode")) return `${flagOf(key)} sets more than the sandbox's mode, which this worker's own settings decide`;
        continue;
      }
      case "autoApprove":
        for (const category of value as string[]) {
          if (!approvedWithoutAllowance.has(category) && !policy.allows.has(`auto-approve=${category}`))
            return needs(`--auto-approve ${category}`, "lets the run act without asking beyond reading and editing its workspace", `auto-approve=${category}`);
        }
        continue;
      case "provider":
        if (value !== policy.ownProvider && !policy.allows.has(`provider=${value as string}`))
          return needs(`--provider ${value as string}`, `would send this worker's key to another provider than its own (${policy.ownProvider})`, `provider=${value as string}`);
        continue;
      case "baseUrl": {
        const key = urlKey(value as string);
        if (key === undefined || (key !== policy.ownBaseUrl && !policy.baseUrls.has(key)))
          return needs(`--base-url ${shownUrl(value as string)}`, "would send this worker's key to an endpoint its own configuration does not name", `base-url=${shownUrl(value as string)}`);
        continue;
      }
      default:
        return `${flagOf(key)} is a run option this worker does not know to be harmless, so it refuses it (is this worker older than the cairn that added the job?)`;
    }
  }
  return undefined;
}
