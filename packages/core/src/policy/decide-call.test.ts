import { describe, expect, it } from "vitest";
import type { ApprovalCategory } from "./approval-category.js";
import type { CallFacts, PathFact } from "./call-facts.js";
import { decideCall, type ActiveRule, type PolicyRules } from "./decide-call.js";
import { loadShellParser } from "./command/index.js";
import { parsePermissionRule } from "./permission-rules.js";

const shell = await loadShellParser();

const inside = (relative: string, access: "read" | "edit" = "edit"): PathFact => ({ access, path: relative, absolute: `/w/${relative}`, external: false, relative });
const outside = (absolute: string, access: "read" | "edit" = "read"): PathFact => ({ access, path: absolute, absolute, external: true });
const guarded: PathFact = { ...inside(".cairnignore"), protected: { path: ".cairnignore", reason: "the person's list of files out of your reach" } };

const write = (p: PathFact = inside("src/a.ts")): CallFacts => ({ tool: "write_to_file", kind: "edit", input: { path: p.path }, paths: [p], autoApproved: false });
const read = (p: PathFact): CallFacts => ({ tool: "read_file", kind: "read", input: { path: p.path }, paths: [p], autoApproved: false });
const command = (text: string, risk: "safe" | "needs_approval" = "needs_approval", modelAsksApproval = true): CallFacts => ({
  tool: "execute_command",
  kind: "command",
  input: { command: text },
  paths: [],
  autoApproved: false,
  command: { text, risk, reasons: risk === "safe" ? [] : ["it deletes files"], modelAsksApproval, shell },
});
const mcp: CallFacts = { tool: "use_mcp_tool", kind: "mcp", input: { server_name: "github", tool_name: "create_issue" }, paths: [], autoApproved: false };
const question: CallFacts = { tool: "ask_followup_question", kind: "interaction", input: {}, paths: [], autoApproved: false };

const settings = (autoApprove: ApprovalCategory[] = [], yolo = false): PolicyRules => ({ yolo, autoApprove: new Set(autoApprove) });
const rule = (text: string, scope: ActiveRule["scope"] = "workspace"): ActiveRule => {
  const parsed = parsePermissionRule(text);
  if (!parsed.ok) throw new Error(parsed.error);
  return { ...parsed.rule, scope };
};

type Row = [name: string, facts: CallFacts, rules: PolicyRules, allow: ActiveRule[], expected: { action: string; by: string; category?: string; rule?: string }];

const table: Row[] = [
  ["a question needs no approval", question, settings(), [], { action: "allow", by: "auto" }],
  ["an edit asks by default", write(), settings(), [], { action: "ask", by: "user", category: "edit" }],
  ["an edit is auto-approved with edit", write(), settings(["edit"]), [], { action: "allow", by: "auto", category: "edit" }],
  ["yolo approves an edit", write(), settings([], true), [], { action: "allow", by: "auto", category: "edit" }],
  ["an edit outside the workspace is edit-external", write(outside("/etc/x", "edit")), settings(["edit"]), [], { action: "ask", by: "user", category: "edit-external" }],
  ["a protected file asks the person even in yolo", write(guarded), settings([], true), [], { action: "ask", by: "user", category: "edit" }],
  ["a protected file asks even with a hook's allow", { ...write(guarded), hook: "allow" }, settings(), [], { action: "ask", by: "user" }],
  ["a protected file asks even with a matching rule", write(guarded), settings(), [rule("write_to_file(*)")], { action: "ask", by: "user" }],
  ["a hook's allow stands in for the person", { ...write(), hook: "allow" }, settings(), [], { action: "allow", by: "hook", category: "edit" }],
  ["a read in a read root (a listed skill's folder) is a plain read", read({ ...outside("/home/p/.cairn/skills/pdf/SKILL.md"), inReadRoot: true }), settings(["read"]), [], { action: "allow", by: "auto", category: "read" }],
  ["an edit in a read root still crosses the boundary", write({ ...outside("/home/p/.cairn/skills/pdf/SKILL.md", "edit"), inReadRoot: true }), settings(["read", "edit"]), [], { action: "ask", by: "user", category: "edit-external" }],
  ["a hook's allow does not cross the boundary", { ...read(outside("/etc/passwd")), hook: "allow" }, settings(), [], { action: "ask", by: "user", category: "read-external" }],
  ["a hook's ask overrides auto-approve", { ...write(), hook: "ask" }, settings(["edit"]), [], { action: "ask", by: "user", category: "edit" }],
  ["a hook's ask overrides a rule", { ...write(), hook: "ask" }, settings(), [rule("write_to_file(src/**)")], { action: "ask", by: "user" }],
  ["a hook's ask on a call needing none asks as a read", { ...question, hook: "ask" }, settings(), [], { action: "ask", by: "user", category: "read" }],
  ["the tool's own config approves (MCP autoApprove)", { ...mcp, autoApproved: true }, settings(), [], { action: "allow", by: "auto", category: "mcp" }],
  ["a safe command the model marked safe is safe-commands", command("ls", "safe", false), settings(["safe-commands"]), [], { action: "allow", by: "auto", category: "safe-commands" }],
  ["a safe command the model wants approved is all-commands", command("ls", "safe", true), settings(["safe-commands"]), [], { action: "ask", by: "user", category: "all-commands" }],
  ["all-commands includes safe ones", command("ls", "safe", false), settings(["all-commands"]), [], { action: "allow", by: "auto" }],
  ["a matching command rule allows", command("npm test -- --watch"), settings(), [rule("execute_command(npm test *)")], { action: "allow", by: "rule", rule: "execute_command(npm test *)" }],
  ["a command rule covers the bare command", command("npm test"), settings(), [rule("execute_command(npm test *)")], { action: "allow", by: "rule" }],
  ["a rule does not cover a chained command", command("npm test; rm -rf x"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule does not cover a substitution", command("npm test $(rm x)"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule does not cover a backtick substitution", command("npm test `rm x`"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule does not cover a redirect", command("npm test > ~/.bashrc"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule does not cover a pipe into a shell", command("npm test | sh"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule fails closed on what does not parse", command("npm test 'unclosed"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a command rule is not a prefix match", command("npm testx"), settings(), [rule("execute_command(npm test *)")], { action: "ask", by: "user" }],
  ["a rule for another tool does not apply", command("npm test"), settings(), [rule("write_to_file(*)")], { action: "ask", by: "user" }],
  ["a path rule allows inside its folder", write(inside("src/deep/a.ts")), settings(), [rule("write_to_file(src/**)")], { action: "allow", by: "rule" }],
  ["a path rule does not allow another folder", write(inside("lib/a.ts")), settings(), [rule("write_to_file(src/**)")], { action: "ask", by: "user" }],
  ["a path rule never reaches outside the workspace", write(outside("/w/../etc/x", "edit")), settings(), [rule("write_to_file(*)")], { action: "ask", by: "user", category: "edit-external" }],
  ["an MCP rule names server/tool", mcp, settings(), [rule("use_mcp_tool(github/create_issue)")], { action: "allow", by: "rule" }],
  ["an MCP rule for another tool does not apply", mcp, settings(), [rule("use_mcp_tool(github/delete_repo)")], { action: "ask", by: "user", category: "mcp" }],
];

describe("decideCall", () => {
  it.each(table)("%s", (_name, facts, rules, allow, expected) => {
    expect(decideCall(facts, rules, { rules: allow })).toMatchObject(expected);
  });

  it("says who decided and why: a rule's decision names the rule and its scope", () => {
    const decision = decideCall(command("npm test"), settings(), { rules: [rule("execute_command(npm test *)", "user")] });
    expect(decision.reason).toBe("allowed by the user rule execute_command(npm test *)");
  });

  it("a command that asks says why in its reason: what the classifier found, nothing when it found nothing", () => {
    expect(decideCall(command("rm -rf build"), settings(), { rules: [] }).reason).toBe("needs approval (all-commands) (it deletes files)");
    const twice: CallFacts = { ...command("rm -rf build"), command: { ...command("rm -rf build").command!, reasons: ["it deletes files", "it reaches outside"] } };
    expect(decideCall(twice, settings(), { rules: [] }).reason).toBe("needs approval (all-commands) (it deletes files; it reaches outside)");
    expect(decideCall(command("ls", "safe", true), settings(), { rules: [] }).reason).toMatch(/^needs approval \([a-z-]+\)$/);
  });

  it("a protected file's decision carries the file, so the host shows it and offers no 'always'", () => {
    expect(decideCall(write(guarded), settings(), { rules: [] }).protected).toEqual(guarded.protected);
  });
});
