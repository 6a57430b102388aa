import { describe, expect, it } from "vitest";
import { parseRunArgs, type RunArgs } from "@cairn/host/run-args";
import { policyRefusal, workerPolicy } from "./job-policy.js";

const args = (...flags: string[]) => parseRunArgs([...flags, "--", "t"], "/w") as RunArgs;
const own = { provider: "anthropic", baseUrl: "http://127.0.0.1:9/v1" };

describe("a worker's policy", () => {
  it("lets harmless options through and refuses each widening one, naming the --allow that would permit it", () => {
    const strict = workerPolicy([], own);
    expect(policyRefusal(args("--model", "m", "--max-turns", "3", "--max-budget-usd", "1", "--mode", "plan", "--auto-approve", "read,edit", "--sandbox", "read-only", "--retries", "0", "--effort", "low"), strict)).toBeUndefined();
    expect(policyRefusal(args("--sandbox", "off"), strict)).toMatch(/^--sandbox off .*--allow sandbox-off$/);
    expect(policyRefusal(args("--yolo"), strict)).toMatch(/^--yolo .*--allow yolo$/);
    expect(policyRefusal(args("--auto-approve", "read,all-commands"), strict)).toMatch(/^--auto-approve all-commands .*--allow auto-approve=all-commands$/);
    expect(policyRefusal(args("--provider", "openai"), strict)).toMatch(/^--provider openai would send this worker's key to another provider .*--allow provider=openai$/);
    expect(policyRefusal(args("--base-url", "http://elsewhere:8080"), strict)).toMatch(/^--base-url http:\/\/elsewhere:8080\/ would send this worker's key .*--allow base-url=http:\/\/elsewhere:8080\/$/);
    // Its own provider and endpoint, however spelled, are no widening.
    expect(policyRefusal(args("--provider", "anthropic", "--base-url", "HTTP://127.0.0.1:9/v1/"), strict)).toBeUndefined();
  });

  it("allows exactly what --allow names", () => {
    const loose = workerPolicy(["yolo,sandbox-off", "auto-approve=all-commands,provider=openai", "base-url=http://elsewhere:8080/v1"], own);
    expect(policyRefusal(args("--yolo", "--sandbox", "off", "--auto-approve", "all-commands", "--provider", "openai", "--base-url", "http://elsewhere:8080/v1"), loose)).toBeUndefined();
    expect(policyRefusal(args("--auto-approve", "mcp"), loose)).toMatch(/--allow auto-approve=mcp/);
    expect(policyRefusal(args("--base-url", "http://elsewhere:8080/v2"), loose)).toMatch(/--allow base-url=/);
    expect(policyRefusal(args("--provider", "openrouter"), loose)).toMatch(/--allow provider=openrouter/);
  });

  it("refuses a run option it has not classified (a newer cairn's), and an --allow it does not know", () => {
    expect(policyRefusal({ ...args(), toolExecution: "sequential" } as RunArgs, workerPolicy([], own))).toMatch(/^--tool-execution is a run option this worker does not know to be harmless/);
    expect(() => workerPolicy(["everything"], own)).toThrow(/--allow "everything" is not one of sandbox-off, yolo/);
    expect(() => workerPolicy(["auto-approve=root"], own)).toThrow(/--allow "auto-approve=root"/);
    expect(() => workerPolicy(["base-url=not a url"], own)).toThrow(/--allow "base-url=not a url"/);
    expect(() => workerPolicy(["base-url=https://me:pw@llm.example/v1"], own)).toThrow(/^--allow base-url=https:\/\/llm\.example\/v1: a base URL holds no user name or password/);
  });

  it("a worker with no provider of its own counts anthropic, the default, as its own", () => {
    const none = workerPolicy([], { provider: undefined, baseUrl: undefined });
    expect(policyRefusal(args("--provider", "anthropic"), none)).toBeUndefined();
    expect(policyRefusal(args("--base-url", "http://127.0.0.1:9/v1"), none)).toMatch(/--allow base-url=/);
  });
});
