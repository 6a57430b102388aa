import { describe, expect, it } from "vitest";
import { hasCommandRules, parseCommandPermissions, validateCommandPermissions } from "./rules.js";

describe("parseCommandPermissions", () => {
  it("reads the JSON and fills defaults", () => {
    const parsed = parseCommandPermissions('{"allow": ["git *"]}');
    expect(parsed).toEqual({ ok: true, permissions: { allow: ["git *"], deny: [], allowRedirects: false } });
  });

  it("gives one line for bad JSON, naming the variable and the expected shape", () => {
    const parsed = parseCommandPermissions("{allow: [}");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error).toMatch(/^CAIRN_COMMAND_PERMISSIONS is not valid JSON \(.+\); expected \{"allow"/);
    expect(parsed.error).not.toContain("\n");
  });

  it("points at the wrong field", () => {
    const bad = parseCommandPermissions('{"allow": ["ls", 3]}');
    expect(bad.ok ? "" : bad.error).toMatch(/^CAIRN_COMMAND_PERMISSIONS\.allow\[1\]: .*string/);
    const empty = parseCommandPermissions('{"deny": ["  "]}');
    expect(empty.ok ? "" : empty.error).toContain("deny[0]: a pattern must not be empty");
    const redirects = validateCommandPermissions({ allowRedirects: "yes" }, "settings.json commandPermissions");
    expect(redirects.ok ? "" : redirects.error).toMatch(/^settings\.json commandPermissions\.allowRedirects: /);
    const unknown = parseCommandPermissions('{"alow": []}');
    expect(unknown.ok ? "" : unknown.error).toContain("alow");
    const notObject = parseCommandPermissions('["ls"]');
    expect(notObject.ok).toBe(false);
  });

  it("counts rules only when a list has patterns", () => {
    expect(hasCommandRules({ allow: [], deny: [], allowRedirects: true })).toBe(false);
    expect(hasCommandRules({ allow: [], deny: ["rm *"], allowRedirects: false })).toBe(true);
  });
});
