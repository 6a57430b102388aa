import { statSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  cairnHome,
  discoveredFacts,
  discoverModels,
  factsFromSettings,
  layeredModelInfo,
  listedModels,
  loadSettings,
  loadWorkspaceSettings,
  mergeSettings,
  providers,
  redactUrl,
  SessionError,
  settingFromText,
  SettingsError,
  settingsFromEnv,
  type CapabilitySource,
  type DiscoveryTarget,
  type ModelInfo,
  type ProviderId,
  type SessionOverrides,
} from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { UsageError } from "@cairn/host/usage-error";

export const modelsHelp = `Usage: cairn models [id...] [--provider id] [--base-url url] [--model id] [--cwd dir] [--json]

What each model takes, and where that came from: images, context window, max output, native tool
calls (or the XML protocol), reasoning and price. Without ids: the task's model (and fallback and
compaction models), every model under "models" in settings.json, and the models the endpoint has
(Ollama's pulled models, LM Studio's downloaded ones).

Sources, highest first:
  settings     "models" in CAIRN_HOME/settings.json or the workspace's trusted .cairn/settings.json
  discovered   what the endpoint says (Ollama /api/show, LM Studio /api/v0/models, OpenRouter
               /models), cached an hour in CAIRN_HOME/cache/models
  built-in     Cairn's list of common models
  default      the guess for a model nobody describes (no images, 128k window, 8k output)

Options:
  --provider, --base-url, --model   as for cairn run (default: settings and environment)
  --cwd dir     the workspace whose settings apply (default: the current folder)
  --json        one JSON object instead of the table`;

type Row = { id: string; role?: string; info: ModelInfo; sources: Record<keyof ModelInfo, CapabilitySource> };

/** `cairn models`: each model's capabilities and where each came from. */
export async function modelsCommand(argv: string[], io: Io): Promise<number> {
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: { provider: { type: "string" }, "base-url": { type: "string" }, model: { type: "string" }, cwd: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split("\n")[0]} (see cairn models --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${modelsHelp}\n`);
    return 0;
  }
  const cwd = path.resolve(typeof values.cwd === "string" ? values.cwd : process.cwd());
  if (!statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`The workspace ${cwd} is not a directory: pass an existing folder with --cwd.`);
  const home = cairnHome(io.env);
  const overrides: SessionOverrides = {};
  try {
    if (typeof values.provider === "string") overrides.provider = settingFromText("provider", values.provider, "--provider");
    if (typeof values["base-url"] === "string") overrides.baseUrl = settingFromText("baseUrl", values["base-url"], "--base-url");
    if (typeof values.model === "string") overrides.model = settingFromText("model", values.model, "--model");
  } catch (error) {
    if (error instanceof SessionError) throw new UsageError(error.message);
    throw error;
  }
  const notices: string[] = [];
  let settings;
  try {
    const workspace = loadWorkspaceSettings(home, cwd);
    if (workspace.notice) notices.push(workspace.notice);
    settings = mergeSettings(loadSettings(home), workspace.settings, settingsFromEnv(io.env), overrides);
  } catch (error) {
    if (error instanceof SettingsError || error instanceof SessionError) throw new UsageError(error.message);
    throw error;
  }
  const provider: ProviderId = settings.provider ?? "anthropic";
  const roles = new Map<string, string>();
  const main = settings.model ?? providers[provider].defaultModel;
  if (main) roles.set(main, "the task's model");
  if (settings.fallbackModel && !roles.has(settings.fallbackModel)) roles.set(settings.fallbackModel, "fallback model");
  if (settings.compactionModel && !roles.has(settings.compactionModel)) roles.set(settings.compactionModel, "compaction model");
  const target: DiscoveryTarget = { home, provider, baseUrl: settings.baseUrl ?? providers[provider].baseUrl };
  if (positionals.length === 0) await discoverModels(target, [], { list: true });
  const ids = [...new Set([...(positionals.length > 0 ? positionals : [...roles.keys(), ...Object.keys(settings.models ?? {}), ...listedModels(target)])])];
  const found = await discoverModels(target, ids);
  if (found.notice) notices.push(found.notice);
  const rows: Row[] = ids.map((id) => ({
    id,
    ...(roles.has(id) ? { role: roles.get(id)! } : {}),
    ...layeredModelInfo(id, provider, { discovered: discoveredFacts(target, id), settings: factsFromSettings(settings.models?.[id]) }),
  }));
  const local = provider === "ollama" || provider === "lmstudio";
  const where = target.baseUrl ? redactUrl(target.baseUrl) : undefined;

  if (values.json) {
    const field = <K extends keyof ModelInfo>(row: Row, key: K, fallback?: ModelInfo[K]) => ({ value: row.info[key] ?? fallback ?? null, source: row.sources[key] });
    const models = rows.map((row) => ({
      id: row.id,
      ...(row.role ? { role: row.role } : {}),
      images: field(row, "supportsImages"),
      contextWindow: field(row, "contextWindow"),
      maxOutput: field(row, "maxOutputTokens"),
      nativeTools: field(row, "nativeTools", !local),
      reasoning: field(row, "reasoning"),
      pricing: field(row, "pricing"),
    }));
    io.stdout(`${JSON.stringify({ provider, baseUrl: where ?? null, protocol: settings.protocol ?? null, models, notices })}\n`);
    return 0;
  }
  for (const notice of notices) io.stderr(`cairn: ${notice}\n`);
  io.stdout(`Models on ${provider}${where ? ` at ${where}` : ""}\n`);
  if (rows.length === 0) io.stdout(`\nNo model named: pass one (cairn models <id>) or set "model" in settings.json.\n`);
  for (const row of rows) {
    const yesNo = (value: boolean | undefined) => (value === undefined ? "not said" : value ? "yes" : "no");
    const tools = row.info.nativeTools ?? !local;
    const lines: Array<[string, string, CapabilitySource]> = [
      ["images", yesNo(row.info.supportsImages), row.sources.supportsImages],
      ["context window", row.info.contextWindow.toLocaleString("en-US"), row.sources.contextWindow],
      ["max output", row.info.maxOutputTokens.toLocaleString("en-US"), row.sources.maxOutputTokens],
      ["native tools", `${tools ? "yes" : "no (XML protocol)"}${settings.protocol ? `; protocol set to ${settings.protocol}` : ""}`, row.sources.nativeTools],
      ["reasoning", typeof row.info.reasoning === "string" ? `yes, ${row.info.reasoning} effort` : yesNo(row.info.reasoning), row.sources.reasoning],
      ["price", row.info.pricing ? `$${row.info.pricing.input} in, $${row.info.pricing.output} out per million tokens` : "unknown", row.sources.pricing],
    ];
    io.stdout(`\n${row.id}${row.role ? ` (${row.role})` : ""}\n`);
    for (const [name, value, source] of lines) io.stdout(`  ${name.padEnd(15)} ${value.padEnd(34)} ${source}\n`);
  }
  return 0;
}
