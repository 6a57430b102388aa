import { describe, expect, it } from "vitest";
import { nativeProtocol } from "../protocol/native.js";
import { xmlProtocol } from "../protocol/xml/xml-protocol.js";
import { briefForm, isBriefForm, offeredTools } from "./brief-tools.js";
import { browserActionTool } from "./browser-action.js";
import { parameterLines } from "./describe-parameters.js";
import { listCodeDefinitionNamesTool } from "./list-code-definition-names.js";
import { newTaskTool } from "./new-task.js";
import { readFileTool } from "./read-file.js";
import { allTools } from "./registry.js";
import { validateInput } from "./run-tool.js";
import { useSubagentsTool } from "./use-subagents.js";
import { webFetchTool } from "./web-fetch.js";

const spec = (tool: (typeof allTools)[number]) => nativeProtocol.requestTools([tool])![0]!;

describe("rarely used tools are offered in one line until first called", () => {
  it("the browser, web_fetch, the outline, asking, notes, hand-offs and sub-agents start brief; the everyday tools start in full", () => {
    const first = offeredTools(allTools, new Set());
    expect(first.filter(isBriefForm).map((t) => t.name).sort()).toEqual(["act_mode_respond", "ask_followup_question", "browser_action", "list_code_definition_names", "web_fetch"]);
    expect(offeredTools([newTaskTool, useSubagentsTool([])], new Set()).every(isBriefForm)).toBe(true);
    expect(first.find((t) => t.name === "read_file")).toBe(readFileTool);
    expect(first.map((t) => t.name)).toEqual(allTools.map((t) => t.name));
  });

  it("a brief is one line, and its native schema keeps names, types, enums and what is required, without descriptions", () => {
    for (const tool of allTools.filter((t) => t.brief)) {
      expect(tool.brief).not.toContain("\n");
      expect(tool.brief!.length).toBeLessThanOrEqual(200);
    }
    const brief = spec(briefForm(browserActionTool));
    expect(brief.description).toBe(browserActionTool.brief);
    expect(brief.inputSchema).toEqual({
      type: "object",
      properties: {
        action: { type: "string", enum: ["launch", "click", "type", "scroll_down", "scroll_up", "close"] },
        url: { type: "string" },
        coordinate: { type: "string" },
        text: { type: "string" },
      },
      required: ["action"],
    });
    expect(JSON.stringify(brief).length).toBeLessThan(JSON.stringify(spec(browserActionTool)).length / 3);
    // The xml prompt's parameter list of a brief offer still names the choices.
    expect(parameterLines(briefForm(browserActionTool))).toBe(
      "- action: (required) one of: launch, click, type, scroll_down, scroll_up, close\n- url: (optional)\n- coordinate: (optional)\n- text: (optional)",
    );
  });

  it("use_subagents' brief names the agent definitions, so the model knows it may pass one; its schema leaves bounds to validation", () => {
    const tool = useSubagentsTool([{ name: "reviewer", description: "Reviews a change.\nIn depth." }, { name: "scout", description: "Maps a codebase." }]);
    const brief = spec(briefForm(tool));
    expect(brief.description).toContain("Agent definitions (pass one as `agent`): reviewer (Reviews a change.); scout (Maps a codebase.).");
    expect(brief.description).not.toContain("\n");
    expect(brief.inputSchema).toEqual({
      type: "object",
      properties: { prompts: { type: "array", items: { type: "string" } }, agent: { type: "string" } },
      required: ["prompts"],
    });
    // The xml prompt's list says how to write the prompts.
    expect(parameterLines(briefForm(tool))).toBe("- prompts: (required) a JSON array of strings\n- agent: (optional)");
    // Bounds still hold: six prompts are refused, with the full description to retry from.
    const invalid = validateInput(briefForm(tool), { prompts: ["a", "b", "c", "d", "e", "f"] });
    expect(invalid.ok ? "" : invalid.message).toContain("use_subagents in full");
    expect(spec(briefForm(useSubagentsTool([]))).description).not.toContain("Agent definitions");
  });

  it("once called, a tool is offered in full, in both protocols", () => {
    const later = offeredTools(allTools, new Set(["web_fetch"]));
    expect(later.find((t) => t.name === "web_fetch")).toBe(webFetchTool);
    expect(spec(later.find((t) => t.name === "web_fetch")!)).toEqual(spec(webFetchTool));
    expect(later.find((t) => t.name === "browser_action")).toBe(briefForm(browserActionTool));
  });

  it("a brief tool keeps its full parameters: the xml parser reads its calls and validation is the full schema's", () => {
    const parser = xmlProtocol.createParser(offeredTools(allTools, new Set()), "m1");
    const events = [...parser.push({ type: "text-delta", text: "<list_code_definition_names>\n<path>src</path>\n</list_code_definition_names>" }), ...parser.end()];
    const call = events.find((e) => e.type === "call");
    expect(call).toMatchObject({ call: { name: "list_code_definition_names", input: { path: "src" } } });
    expect(validateInput(briefForm(listCodeDefinitionNamesTool), { path: "src" })).toEqual({ ok: true, input: { path: "src" } });
  });

  it("a call with wrong input gets the tool's full description and parameters in its error", () => {
    const invalid = validateInput(browserActionTool, { action: "open", url: "http://x" });
    expect(invalid.ok).toBe(false);
    const message = invalid.ok ? "" : invalid.message;
    expect(message).toContain("Invalid parameters for browser_action");
    expect(message).toContain("browser_action in full");
    expect(message).toContain("Take positions from the screenshot; never guess.");
    expect(message).toMatch(/- coordinate: \(optional\) For click: where to click/);
    // An everyday tool's error stays short: its description is already in the request.
    const plain = validateInput(readFileTool, {});
    expect(plain.ok ? "" : plain.message).not.toContain("in full");
  });
});
