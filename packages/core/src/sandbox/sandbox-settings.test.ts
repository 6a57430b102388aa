import { describe, expect, it } from "vitest";
import { sandboxRequest } from "./sandbox-settings.js";

describe("sandboxRequest", () => {
  it("takes the flag over CAIRN_SANDBOX over settings over workspace-write", () => {
    const settings = { mode: "read-only" as const, network: "off" as const, allowLocalhost: true, hiddenPaths: ["~/.secrets"] };
    expect(sandboxRequest("off", "required", settings)).toEqual({ ok: true, request: { mode: "off", network: "off", allowLocalhost: true, hiddenPaths: ["~/.secrets"], writablePaths: [], passEnv: [] } });
    expect(sandboxRequest(undefined, "required", settings)).toMatchObject({ request: { mode: "required" } });
    expect(sandboxRequest(undefined, " ", settings)).toMatchObject({ request: { mode: "read-only" } });
    expect(sandboxRequest(undefined, undefined, undefined)).toEqual({ ok: true, request: { mode: "workspace-write", network: "on", allowLocalhost: false, hiddenPaths: [], writablePaths: [], passEnv: [] } });
  });

  it("names the source of an unknown mode", () => {
    expect(sandboxRequest("strict", undefined, undefined)).toEqual({ ok: false, error: '--sandbox must be one of workspace-write, read-only, off, required, got "strict".' });
    expect(sandboxRequest(undefined, "on", undefined)).toMatchObject({ ok: false, error: expect.stringContaining("CAIRN_SANDBOX") });
  });
});
