/**
 * Prompt size: what every request carries before the conversation.
 *
 * - The system prompt per section and whole, and the native tool schemas, in cl100k and o200k
 *   tokens, as the first request offers the tools (rarely used ones in their one-line brief).
 *   Goal (issue 6): the xml-protocol prompt ≤ 4,000 cl100k tokens (Cline's generic prompt: ~12,000).
 * - The first request as it leaves the real `cairn run` (native and xml protocol, act and plan mode)
 *   against the scripted model, in exact o200k tokens: system text + tool schemas + the first
 *   message (the task and its environment details). Goal (issue 13): native, act ≤ 2,800 with every
 *   tool still offered (Cline CLI 3.0: 2,871). Beside each, the same request with every tool
 *   described in full, which is what Cairn sent before rarely used tools were offered briefly.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";
import { nativeProtocol, toolSpec } from "../packages/core/src/protocol/native.js";
import { xmlToolSection } from "../packages/core/src/protocol/xml/xml-protocol.js";
import { buildSystemPrompt } from "../packages/core/src/prompt/system-prompt.js";
import { offeredTools } from "../packages/core/src/tools/brief-tools.js";
import { newTaskTool } from "../packages/core/src/tools/new-task.js";
import { allTools } from "../packages/core/src/tools/registry.js";
import type { AnyTool, Mode } from "../packages/core/src/tools/tool.js";
import { useSubagentsTool } from "../packages/core/src/tools/use-subagents.js";
import { startScriptedModelServer, type RecordedRequest } from "../test/support/scripted-model-server.js";
import type { BenchRow } from "./run.js";

const system = { platform: "Linux 6.1 (linux)", shell: "/bin/bash", home: "/home/person" };
const cairnBin = path.join(path.dirname(fileURLToPath(import.meta.url)), "../packages/cli/bin/cairn.js");
const clineFirstRequest = 2_871;
const firstRequestGoal = 2_800;

const o200k = getEncoding("o200k_base");
const cl100k = getEncoding("cl100k_base");
const tokens = (text: string) => o200k.encode(text).length;
const n = (value: number) => value.toLocaleString("en-US");
const both = (text: string) => `${n(cl100k.encode(text).length)} cl100k / ${n(tokens(text))} o200k`;

/** The tools a session gives a task (with no agent definitions), in its order: attempt_completion last. */
const sessionTools: readonly AnyTool[] = [...allTools.filter((t) => t.name !== "attempt_completion"), newTaskTool, useSubagentsTool([]), ...allTools.filter((t) => t.name === "attempt_completion")];
const toolsFor = (mode: Mode) => sessionTools.filter((t) => t.modes.includes(mode));
/** The tools as a fresh task offers them: nothing called yet. */
const firstOffer = (mode: Mode) => offeredTools(toolsFor(mode), new Set());

type WireTool = { name: string; description?: string; input_schema?: unknown };
type Parts = { system: string; tools: string; messages: string; toolCount: number };

/** What the model reads of an Anthropic request: the system text, the tools as sent, the messages' text. */
function partsOf(request: RecordedRequest): Parts {
  const body = request.body as { system?: unknown; tools?: WireTool[]; messages?: Array<{ content: unknown }> };
  const text = (value: unknown): string => {
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return value.map((part: { text?: string }) => part.text ?? "").join("\n");
    return "";
  };
  return {
    system: text(body.system),
    tools: body.tools ? JSON.stringify(body.tools) : "",
    messages: (body.messages ?? []).map((m) => text(m.content)).join("\n"),
    toolCount: body.tools?.length ?? 0,
  };
}

const total = (p: Parts) => tokens(p.system) + tokens(p.tools) + tokens(p.messages);

/** The same request with every tool described in full (as before brief offers). */
function inFull(parts: Parts, mode: Mode): Parts | undefined {
  const full = new Map(toolsFor(mode).map((t): [string, AnyTool] => [t.name, t]));
  if (parts.tools !== "") {
    const wire = (JSON.parse(parts.tools) as WireTool[]).map((t) => {
      const tool = full.get(t.name);
      if (!tool?.brief) return t;
      const spec = toolSpec(tool, JSON.stringify(t.input_schema ?? {}).includes('"task_progress"'));
      return { ...t, description: spec.description, input_schema: spec.inputSchema };
    });
    return { ...parts, tools: JSON.stringify(wire) };
  }
  const brief = xmlToolSection(firstOffer(mode));
  if (!parts.system.includes(brief)) return undefined;
  return { ...parts, system: parts.system.replace(brief, xmlToolSection(toolsFor(mode))) };
}

/** Runs `cairn`; resolves with its stderr whatever the exit code (plan mode ends waiting for the person). */
function runCairn(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cairnBin, ...args], { cwd, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", () => resolve(stderr));
  });
}

/** The first request of `cairn run` in a small workspace, per protocol and mode. */
async function firstRequests(): Promise<BenchRow[]> {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-prompt-home-")));
  const ws = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-bench-prompt-ws-")));
  writeFileSync(path.join(ws, "README.md"), "# A small project\n");
  writeFileSync(path.join(ws, "index.js"), "console.log('hello');\n");
  const server = await startScriptedModelServer({
    responder: (request) => {
      const body = request.body as { tools?: unknown[]; system?: unknown };
      const plan = JSON.stringify(body.system ?? "").includes("PLAN mode");
      const [name, param, value] = plan ? ["plan_mode_respond", "response", "The plan."] : ["attempt_completion", "result", "Done."];
      if (body.tools) return { content: [{ type: "tool_use", name, input: { [param]: value } }] };
      return { content: [{ type: "text", text: `<${name}>\n<${param}>${value}</${param}>\n</${name}>` }] };
    },
  });
  const env = { ...process.env, CAIRN_HOME: home, ANTHROPIC_API_KEY: "k" };
  const rows: BenchRow[] = [];
  try {
    for (const protocol of ["native", "xml"] as const) {
      for (const mode of ["act", "plan"] as const) {
        const before = server.requests.length;
        const stderr = await runCairn(["run", "--provider", "anthropic", "--base-url", server.url, "--cwd", ws, "--protocol", protocol, "--mode", mode, "--max-turns", "1", "--json", "Say you are done."], env, ws);
        const request = server.requests[before];
        if (!request) throw new Error(`cairn run (${protocol}, ${mode}) sent no request: ${stderr.slice(-500)}`);
        const parts = partsOf(request);
        const sent = total(parts);
        const tools = protocol === "native" ? `${parts.toolCount} tools ${n(tokens(parts.tools))}` : `tools in the system text`;
        const main = protocol === "native" && mode === "act";
        rows.push({
          bench: "prompt",
          case: `first request as sent, ${protocol}, ${mode} (o200k: system + tools + first message)`,
          measure: `${n(sent)} (system ${n(tokens(parts.system))}, ${tools}, message ${n(tokens(parts.messages))})`,
          ...(main
            ? { baseline: `Cline CLI 3.0: ${n(clineFirstRequest)}`, ratio: `${(sent / clineFirstRequest).toFixed(2)}×`, goal: `≤ ${n(firstRequestGoal)}`, pass: sent <= firstRequestGoal }
            : {}),
        });
        const full = inFull(parts, mode);
        if (full) rows.push({ bench: "prompt", case: "  the same request with every tool described in full", measure: n(total(full)), ratio: `brief offers save ${n(total(full) - sent)}` });
      }
    }
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
  return rows;
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const tools = firstOffer("act");

  const xml = buildSystemPrompt({ cwd: "/work/project", mode: "act", protocol: "xml", tools, system });
  for (const section of xml.split(/\n(?=# )/)) {
    const title = section.startsWith("# ") ? section.slice(2, section.indexOf("\n")) : "Introduction";
    rows.push({ bench: "prompt", case: `xml, act: section "${title}"`, measure: both(section) });
  }
  const xmlTokens = cl100k.encode(xml).length;
  rows.push({ bench: "prompt", case: `xml, act: whole system prompt (${tools.length} tools)`, measure: both(xml), baseline: "Cline generic: 12,072 cl100k", ratio: `${(xmlTokens / 12_072).toFixed(2)}×`, goal: "≤ 4,000 cl100k", pass: xmlTokens <= 4_000 });

  const native = buildSystemPrompt({ cwd: "/work/project", mode: "act", protocol: "native", tools, system });
  const schemas = JSON.stringify(nativeProtocol.requestTools(tools));
  const nativeTokens = cl100k.encode(native).length + cl100k.encode(schemas).length;
  rows.push({ bench: "prompt", case: "native, act: system prompt text", measure: both(native) });
  rows.push({ bench: "prompt", case: "native, act: tool schemas (JSON)", measure: both(schemas) });
  rows.push({ bench: "prompt", case: "native, act: system prompt + schemas", measure: `${n(nativeTokens)} cl100k`, goal: "< xml prompt", pass: nativeTokens < xmlTokens });

  const plan = buildSystemPrompt({ cwd: "/work/project", mode: "plan", protocol: "xml", tools: firstOffer("plan"), system });
  rows.push({ bench: "prompt", case: "xml, plan: whole system prompt", measure: both(plan) });

  rows.push(...(await firstRequests()));
  return rows;
}
