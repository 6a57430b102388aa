/**
 * Prompt size: what every request carries before the conversation, per section, in cl100k and
 * o200k tokens. Goal (issue 6): the xml-protocol prompt with all tools ≤ 4,000 tokens (Cline's
 * generic prompt: ~12,000), the native one smaller still (system text + tool schemas).
 */
import { getEncoding } from "js-tiktoken";
import { nativeProtocol } from "../packages/core/src/protocol/native.js";
import { buildSystemPrompt } from "../packages/core/src/prompt/system-prompt.js";
import { allTools } from "../packages/core/src/tools/registry.js";
import type { BenchRow } from "./run.js";

const system = { platform: "Linux 6.1 (linux)", shell: "/bin/bash", home: "/home/person" };

export async function run(): Promise<BenchRow[]> {
  const cl100k = getEncoding("cl100k_base");
  const o200k = getEncoding("o200k_base");
  const count = (text: string) => `${cl100k.encode(text).length.toLocaleString("en-US")} cl100k / ${o200k.encode(text).length.toLocaleString("en-US")} o200k`;
  const rows: BenchRow[] = [];
  const tools = allTools.filter((t) => t.modes.includes("act"));

  const xml = buildSystemPrompt({ cwd: "/work/project", mode: "act", protocol: "xml", tools, system });
  const sections = xml.split(/\n(?=# )/);
  for (const section of sections) {
    const title = section.startsWith("# ") ? section.slice(2, section.indexOf("\n")) : "Introduction";
    rows.push({ bench: "prompt", case: `xml, act: section "${title}"`, measure: count(section) });
  }
  const xmlTokens = cl100k.encode(xml).length;
  rows.push({ bench: "prompt", case: `xml, act: whole system prompt (${tools.length} tools)`, measure: count(xml), baseline: "Cline generic: 12,072 cl100k", ratio: `${(xmlTokens / 12_072).toFixed(2)}×`, goal: "≤ 4,000 cl100k", pass: xmlTokens <= 4_000 });

  const native = buildSystemPrompt({ cwd: "/work/project", mode: "act", protocol: "native", tools, system });
  const schemas = JSON.stringify(nativeProtocol.requestTools(tools));
  const nativeTokens = cl100k.encode(native).length + cl100k.encode(schemas).length;
  rows.push({ bench: "prompt", case: "native, act: system prompt text", measure: count(native) });
  rows.push({ bench: "prompt", case: "native, act: tool schemas (JSON)", measure: count(schemas) });
  rows.push({ bench: "prompt", case: "native, act: system prompt + schemas", measure: `${nativeTokens.toLocaleString("en-US")} cl100k`, goal: "< xml prompt", pass: nativeTokens < xmlTokens });

  const plan = buildSystemPrompt({ cwd: "/work/project", mode: "plan", protocol: "xml", tools: allTools.filter((t) => t.modes.includes("plan")), system });
  rows.push({ bench: "prompt", case: "xml, plan: whole system prompt", measure: count(plan) });
  return rows;
}
