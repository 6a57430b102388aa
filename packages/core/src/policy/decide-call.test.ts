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
    expect(decideCall(write(guarded), settings(), { rules: [] })).toMatchObject({ action: "ask", protected: guarded.protected });
  });
});

const commandRules = (deny: string[], allow: string[] = []): PolicyRules["commands"] => ({ allow, deny, allowRedirects: false });
const inPlan = (facts: CallFacts, offered = false): CallFacts => ({ ...facts, mode: { now: "plan", offered } });
const narration = (previous: string): CallFacts => ({ ...question, tool: "act_mode_respond", input: { response: "still going" }, previous });
const ignored = (facts: CallFacts): CallFacts => ({ ...facts, ignored: { path: "secrets/key.txt", by: ".cairnignore / .clineignore" } });
const hookDeny = (facts: CallFacts, message?: string): CallFacts => ({ ...facts, hook: { deny: "writes are frozen", ...(message ? { message } : {}) } });

type RefusalRow = [name: string, facts: CallFacts, rules: PolicyRules, allow: ActiveRule[], expected: Record<string, unknown>];

/**
 * Every "no" a call gets from policy, one row per class with the reason the person and the journal
 * read and the line the model reads; each class's control is the same call let through when the
 * setting allows it (the refusal is the fact's doing, not a call that would never run anyway).
 */
const refusals: RefusalRow[] = [
  // A tool this mode does not offer.
  ["mode gate: an edit in PLAN mode, yolo even", inPlan(write()), settings([], true), [], { action: "deny", by: "policy", reason: "write_to_file is not available in PLAN mode", message: "write_to_file is not available in PLAN mode. Use the tools this mode offers." }],
  ["mode gate: a rule does not lift it", inPlan(write()), settings(), [rule("write_to_file(*)")], { action: "deny", by: "policy", reason: "write_to_file is not available in PLAN mode" }],
  ["mode gate: a hook's allow does not lift it", { ...inPlan(write()), hook: "allow" }, settings(), [], { action: "deny", by: "policy", reason: "write_to_file is not available in PLAN mode" }],
  ["mode gate control: a tool the mode offers runs under yolo", inPlan(write(), true), settings([], true), [], { action: "allow", by: "auto", category: "edit" }],
  // Narration: act_mode_respond twice in a row.
  ["narration: act_mode_respond right after act_mode_respond", narration("act_mode_respond"), settings([], true), [], { action: "deny", by: "policy", reason: "act_mode_respond twice in a row is narration, not work", message: expect.stringMatching(/^act_mode_respond was refused: you used it in your previous call\. Do the work with the other tools/) }],
  ["narration control: act_mode_respond after other work", narration("read_file"), settings(), [], { action: "allow", by: "auto" }],
  ["narration control: another tool after act_mode_respond", { ...question, previous: "act_mode_respond" }, settings(), [], { action: "allow", by: "auto" }],
  // A path the ignore files block.
  ["ignored file: a read, yolo even", ignored(read(inside("secrets/key.txt", "read"))), settings([], true), [], { action: "deny", by: "policy", reason: "secrets/key.txt is blocked by .cairnignore / .clineignore; the person has put it out of reach", message: "secrets/key.txt is blocked by .cairnignore / .clineignore; the person has put it out of reach. Do not try to access it another way; work without it." }],
  ["ignored file: a rule and a hook's allow do not lift it", { ...ignored(write()), hook: "allow" }, settings(["edit"]), [rule("write_to_file(*)")], { action: "deny", by: "policy" }],
  ["ignored file control: the same read of a path no ignore file blocks", read(inside("secrets/key.txt", "read")), settings(["read"]), [], { action: "allow", by: "auto", category: "read" }],
  // A PreToolUse hook's deny.
  ["hook deny: yolo does not lift it", hookDeny(write()), settings([], true), [], { action: "deny", by: "hook", reason: "writes are frozen", message: "Blocked by a hook: writes are frozen" }],
  ["hook deny: the hook's own message reaches the model", hookDeny(write(), "Run the formatter first."), settings(), [], { action: "deny", by: "hook", reason: "writes are frozen", message: "Run the formatter first." }],
  ["hook deny control: without the deny, the same edit runs under edit", write(), settings(["edit"]), [], { action: "allow", by: "auto", category: "edit" }],
  // The command rules (CAIRN_COMMAND_PERMISSIONS).
  [
    "command deny rule: yolo and a rule do not lift it",
    command("git push origin main"),
    { ...settings([], true), commands: commandRules(["git push *"]) },
    [rule("execute_command(git *)")],
    { action: "deny", by: "policy", reason: '"git push origin main" matches the deny rule "git push *" of the command permissions. Do not retry it in another form; find another way, or ask the user to run it. (failing part: git push origin main)', message: expect.stringMatching(/^Command denied by the command rules: "git push origin main" matches the deny rule "git push \*"/) },
  ],
  ["command deny rule: a segment of a chain", command("npm test && git push"), { ...settings(["all-commands"]), commands: commandRules(["git push*"]) }, [], { action: "deny", by: "policy", reason: expect.stringContaining("(failing part: git push)") }],
  ["command allow list: a command it does not list", command("curl example.com"), { ...settings([], true), commands: commandRules([], ["npm *"]) }, [], { action: "deny", by: "policy", message: expect.stringMatching(/^Command denied by the command rules: /) }],
  ["command rules control: a command no rule denies runs under all-commands", command("git status"), { ...settings(["all-commands"]), commands: commandRules(["git push *"]) }, [], { action: "allow", by: "auto", category: "all-commands" }],
  ["command rules control: a listed command runs under yolo", command("npm test"), { ...settings([], true), commands: commandRules([], ["npm *"]) }, [], { action: "allow", by: "auto" }],
  // A protected file: only the person may say yes (nobody to ask refuses it: approveCall).
  ["protected file: yolo asks the person", write(guarded), settings([], true), [], { action: "ask", by: "user", reason: ".cairnignore is a protected file (the person's list of files out of your reach); only the person can approve changing it" }],
  ["protected file control: an ordinary file runs under edit", write(), settings(["edit"]), [], { action: "allow", by: "auto", category: "edit" }],
  // The workspace boundary: a path outside it needs read-external / edit-external or the person.
  ["workspace boundary: a read outside asks under read", read(outside("/etc/passwd")), settings(["read"]), [], { action: "ask", by: "user", category: "read-external", reason: "needs approval (read-external)" }],
  ["workspace boundary: an edit outside asks under edit", write(outside("/etc/x", "edit")), settings(["edit"]), [], { action: "ask", by: "user", category: "edit-external", reason: "needs approval (edit-external)" }],
  ["workspace boundary control: read-external lets the read run", read(outside("/etc/passwd")), settings(["read-external"]), [], { action: "allow", by: "auto", category: "read-external" }],
  ["workspace boundary control: edit-external lets the edit run", write(outside("/etc/x", "edit")), settings(["edit-external"]), [], { action: "allow", by: "auto", category: "edit-external" }],
  // Which refusal speaks when several hold: the order of refusalOf.
  ["the mode gate speaks before an ignored path and a hook's deny", hookDeny(ignored(inPlan(write()))), settings(), [], { action: "deny", by: "policy", reason: "write_to_file is not available in PLAN mode" }],
  ["an ignored path speaks before a hook's deny", hookDeny(ignored(write())), settings(), [], { action: "deny", by: "policy", reason: expect.stringContaining("is blocked by") }],
  ["a hook's deny speaks before the command rules", hookDeny(command("git push")), { ...settings(), commands: commandRules(["git push*"]) }, [], { action: "deny", by: "hook" }],
];

describe("decideCall: every refusal, in one form", () => {
  it.each(refusals)("%s", (_name, facts, rules, allow, expected) => {
    expect(decideCall(facts, rules, { rules: allow })).toEqual(expect.objectContaining(expected));
  });

  it("a refusal says who refused, one line for the person and one for the model, and nothing that would let it run", () => {
    const denied = refusals.map(([, facts, rules, allow]) => decideCall(facts, rules, { rules: allow })).filter((d) => d.action === "deny");
    expect(denied.length).toBeGreaterThan(10);
    for (const decided of denied) {
      expect(Object.keys(decided).sort()).toEqual(["action", "by", "message", "reason"]);
      expect(decided.reason).toMatch(/^[^\n]+$/);
      expect(decided.message).toMatch(/^[^\n]+$/);
    }
  });
});
